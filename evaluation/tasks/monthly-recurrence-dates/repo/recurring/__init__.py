"""Monthly recurrences such as billing dates."""

from recurring.months import add_months, month_end, next_occurrence, occurrences

__all__ = ["add_months", "month_end", "next_occurrence", "occurrences"]
