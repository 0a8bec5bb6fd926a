"""Amortisation schedules of fixed-rate loans repaid monthly."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from amortize.money import monthly_rate, to_cents


@dataclass(frozen=True)
class Row:
    month: int
    payment: Decimal
    interest: Decimal
    principal: Decimal
    balance: Decimal


def monthly_payment(principal: Decimal, annual_percent: Decimal, months: int) -> Decimal:
    """The level payment that repays `principal` in `months` months."""
    if months < 1:
        raise ValueError("a loan runs for at least one month")
    rate = monthly_rate(annual_percent)
    if rate == 0:
        return to_cents(principal / months)
    return to_cents(principal * rate / (1 - (1 + rate) ** -months))


def schedule(principal: Decimal, annual_percent: Decimal, months: int) -> list[Row]:
    """Month by month: interest on the balance, the rest of the payment repays principal.

    Every amount is rounded to the cent; the last payment is adjusted so that the balance
    ends at exactly zero.
    """
    principal = Decimal(principal)
    rate = monthly_rate(annual_percent)
    payment = monthly_payment(principal, annual_percent, months)
    balance = principal
    rows = []
    for month in range(1, months + 1):
        interest = to_cents(balance * rate)
        if month == months:
            payment = balance + interest
        repaid = payment - interest
        balance -= repaid
        rows.append(Row(month, payment, interest, repaid, balance))
    return rows


def total_interest(principal: Decimal, annual_percent: Decimal, months: int) -> Decimal:
    return sum((row.interest for row in schedule(principal, annual_percent, months)), Decimal("0"))
