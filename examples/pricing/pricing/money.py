"""Money arithmetic on `Decimal`, rounded the way a till rounds: half up, to the cent."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def round_money(amount: Decimal) -> Decimal:
    """Round an amount to whole cents, halves away from zero (2.345 -> 2.35)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def percent_of(amount: Decimal, percent: Decimal) -> Decimal:
    """`percent` percent of `amount`, rounded to the cent: percent_of(80, 25) == 20.00."""
    return round_money(amount * percent / 100)


def percent_change(old: Decimal, new: Decimal) -> float:
    """Relative change from `old` to `new` in percent, to two decimals.

    A rise is positive and a fall negative: 50 -> 60 is +20.0, 50 -> 40 is -20.0.
    """
    if old == 0:
        raise ValueError("percent change from a zero price is undefined")
    return round(float((old - new) / old * 100), 2)
