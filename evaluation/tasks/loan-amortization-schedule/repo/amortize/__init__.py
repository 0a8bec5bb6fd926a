"""Repayment schedules of fixed-rate loans."""

from amortize.money import monthly_rate, to_cents
from amortize.schedule import Row, monthly_payment, schedule, total_interest

__all__ = ["Row", "monthly_payment", "monthly_rate", "schedule", "to_cents", "total_interest"]
