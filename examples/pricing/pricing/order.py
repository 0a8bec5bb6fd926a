"""Orders: line items, an optional discount on the subtotal, and tax on what remains."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from pricing.discounts import Discount
from pricing.money import percent_change, percent_of, round_money


@dataclass(frozen=True)
class LineItem:
    sku: str
    unit_price: Decimal
    quantity: int = 1

    @property
    def total(self) -> Decimal:
        return round_money(self.unit_price * self.quantity)


@dataclass
class Order:
    """A basket. Tax is charged on the discounted subtotal, at `tax_rate` percent."""

    items: list[LineItem] = field(default_factory=list)
    discount: Discount | None = None
    tax_rate: Decimal = Decimal("0")

    def add(self, sku: str, unit_price: Decimal, quantity: int = 1) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self.items.append(LineItem(sku, unit_price, quantity))

    @property
    def subtotal(self) -> Decimal:
        return round_money(sum((item.total for item in self.items), Decimal("0")))

    @property
    def discount_amount(self) -> Decimal:
        return self.discount.amount_off(self.subtotal) if self.discount else Decimal("0.00")

    @property
    def tax(self) -> Decimal:
        return percent_of(self.subtotal - self.discount_amount, self.tax_rate)

    @property
    def total(self) -> Decimal:
        return round_money(self.subtotal - self.discount_amount + self.tax)


def price_change_report(old: dict[str, Decimal], new: dict[str, Decimal]) -> dict[str, float]:
    """Percent change per SKU priced in both lists, largest rise first."""
    changes = {sku: percent_change(old[sku], new[sku]) for sku in old if sku in new}
    return dict(sorted(changes.items(), key=lambda pair: (-pair[1], pair[0])))
