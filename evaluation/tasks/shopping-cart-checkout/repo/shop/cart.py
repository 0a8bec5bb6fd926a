"""The cart: one line per product, with a quantity."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from shop.catalog import Product


@dataclass
class Line:
    product: Product
    quantity: int

    @property
    def amount(self) -> Decimal:
        return self.product.price * self.quantity


class Cart:
    def __init__(self) -> None:
        self._lines: dict[str, Line] = {}

    def add(self, product: Product, quantity: int = 1) -> None:
        if quantity < 1:
            raise ValueError("quantity must be at least 1")
        line = self._lines.get(product.sku)
        if line is None:
            self._lines[product.sku] = Line(product, quantity)
        else:
            line.quantity += quantity

    def remove(self, sku: str, quantity: int = 1) -> None:
        """Take `quantity` of a product out; the line goes when none is left."""
        line = self._lines[sku]
        if quantity > line.quantity:
            raise ValueError(f"only {line.quantity} of {sku} in the cart")
        line.quantity -= quantity
        if line.quantity < 0:
            del self._lines[sku]

    @property
    def lines(self) -> list[Line]:
        return list(self._lines.values())

    def quantity_of(self, sku: str) -> int:
        line = self._lines.get(sku)
        return line.quantity if line else 0

    @property
    def subtotal(self) -> Decimal:
        return sum((line.amount for line in self._lines.values()), Decimal("0"))
