"""Month arithmetic on dates.

Adding months keeps the day of the month where possible and otherwise clamps to the month's
last day: January 31 plus one month is February 28 (or 29).
"""

from __future__ import annotations

import calendar
from datetime import date


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def add_months(day: date, months: int) -> date:
    """`day` moved by `months` months (backwards when negative), clamped to the month's end."""
    index = day.month + months
    year = day.year + index // 12
    month = index % 12
    return date(year, month, min(day.day, month_end(year, month).day))


def occurrences(start: date, count: int) -> list[date]:
    """`count` monthly dates from `start`; each is computed from `start`, so clamping one
    month does not drift the day for the months after it."""
    return [add_months(start, i) for i in range(count)]


def next_occurrence(start: date, after: date) -> date:
    """The first monthly date of the series beginning at `start` that is later than `after`."""
    months = max(0, (after.year - start.year) * 12 + after.month - start.month)
    candidate = add_months(start, months)
    while candidate <= after:
        months += 1
        candidate = add_months(start, months)
    return candidate
