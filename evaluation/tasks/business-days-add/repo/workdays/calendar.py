"""Monday to Friday are working days, except holidays."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Collection

NO_HOLIDAYS: frozenset[date] = frozenset()


def is_business_day(day: date, holidays: Collection[date] = NO_HOLIDAYS) -> bool:
    return day.weekday() <= 5 and day not in holidays


def add_business_days(start: date, days: int, holidays: Collection[date] = NO_HOLIDAYS) -> date:
    """The date `days` working days after `start` (before it when negative).

    `start` itself is not counted, so adding 1 to a Friday gives the next Monday; adding 0
    returns `start` unchanged even when it is not a working day.
    """
    step = timedelta(days=1 if days >= 0 else -1)
    remaining = abs(days)
    day = start
    while remaining:
        day += step
        if is_business_day(day, holidays):
            remaining -= 1
    return day


def business_days_between(start: date, end: date, holidays: Collection[date] = NO_HOLIDAYS) -> int:
    """Working days after `start` up to and including `end` (negative when end < start)."""
    if end < start:
        return -business_days_between(end, start, holidays)
    return sum(
        is_business_day(start + timedelta(days=offset), holidays)
        for offset in range(1, (end - start).days + 1)
    )


def due_date(received: datetime, days: int, cutoff: time = time(17, 0), holidays: Collection[date] = NO_HOLIDAYS) -> date:
    """Requests received after the cutoff, or on a non-working day, count from the next working day."""
    start = received.date()
    if received.time() > cutoff or not is_business_day(start, holidays):
        start = add_business_days(start, 1, holidays)
    return add_business_days(start, days, holidays)
