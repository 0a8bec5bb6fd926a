"""Turning a cart into a receipt."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Sequence, Union

from shop.cart import Cart
from shop.promotions import BuyXGetY, CategoryPercentOff

Promotion = Union[BuyXGetY, CategoryPercentOff]
CENT = Decimal("0.01")


class EmptyCart(Exception):
    pass


@dataclass(frozen=True)
class Receipt:
    lines: list[str]
    subtotal: Decimal
    discount: Decimal
    tax: Decimal
    total: Decimal


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def checkout(cart: Cart, promotions: Sequence[Promotion] = (), tax_percent: Decimal = Decimal("0")) -> Receipt:
    """Discounts come off the subtotal; tax is charged on what remains."""
    if not cart.lines:
        raise EmptyCart("nothing to check out")
    lines = [f"{line.quantity} x {line.product.name} @ {line.product.price}" for line in cart.lines]
    subtotal = cart.subtotal
    discount = _cents(sum((promotion.discount(cart) for promotion in promotions), Decimal("0")))
    discount = min(discount, subtotal)
    tax = _cents((subtotal - discount) * tax_percent / 100)
    return Receipt(lines, subtotal, discount, tax, subtotal - discount + tax)
