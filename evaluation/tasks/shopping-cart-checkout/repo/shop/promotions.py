"""Promotions compute a discount for a cart."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from shop.cart import Cart


@dataclass(frozen=True)
class BuyXGetY:
    """Buy `buy` of a product, get `free` more of it free: 3-for-2 is BuyXGetY(sku, 2, 1)."""

    sku: str
    buy: int
    free: int

    def discount(self, cart: Cart) -> Decimal:
        for line in cart.lines:
            if line.product.sku == self.sku:
                groups = line.quantity // (self.buy + self.free)
                return line.product.price * groups * self.free
        return Decimal("0")


@dataclass(frozen=True)
class CategoryPercentOff:
    category: str
    percent: Decimal

    def discount(self, cart: Cart) -> Decimal:
        eligible = sum((l.amount for l in cart.lines if l.product.category == self.category), Decimal("0"))
        return eligible * self.percent / 100
