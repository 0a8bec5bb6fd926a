"""Money as Decimal, rounded to the cent the way lenders do: half up."""

from __future__ import annotations

import decimal
from decimal import Decimal

CENT = Decimal("0.01")


def to_cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=decimal.ROUND_DOWN)


def monthly_rate(annual_percent: Decimal) -> Decimal:
    """6 (% a year) -> 0.005 a month."""
    return Decimal(annual_percent) / 100 / 12
