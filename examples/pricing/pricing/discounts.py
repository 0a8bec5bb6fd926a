"""Discounts: a percentage off or a fixed amount off, never below zero."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from pricing.money import percent_of, round_money


@dataclass(frozen=True)
class Discount:
    """A discount of `value` percent (kind "percent") or `value` currency units (kind "fixed")."""

    kind: str
    value: Decimal

    def __post_init__(self) -> None:
        if self.kind not in ("percent", "fixed"):
            raise ValueError(f"unknown discount kind: {self.kind!r}")
        if self.value < 0:
            raise ValueError("a discount cannot be negative")
        if self.kind == "percent" and self.value > 100:
            raise ValueError("a percentage discount cannot exceed 100")

    def amount_off(self, price: Decimal) -> Decimal:
        """How much this discount takes off `price` (at most the whole price)."""
        off = percent_of(price, self.value) if self.kind == "percent" else self.value
        return round_money(min(off, price))

    def apply(self, price: Decimal) -> Decimal:
        """The price after this discount."""
        return round_money(price - self.amount_off(price))


def best_discount(price: Decimal, discounts: list[Discount]) -> Discount | None:
    """The discount that leaves the lowest price, or None when there is none to choose."""
    if not discounts:
        return None
    return max(discounts, key=lambda discount: discount.amount_off(price))
