"""Slots when everybody is at work."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Optional, Sequence

from meetings.people import Person


def common_slots(people: Sequence[Person], day: date, minutes: int = 30) -> list[tuple[str, str]]:
    """Back-to-back UTC slots of `minutes` inside everyone's working hours on `day`,
    as ("HH:MM", "HH:MM") pairs; slots start on the hour or half hour."""
    if not people:
        return []
    spans = [person.working_hours_utc(day) for person in people]
    start = max(span[0] for span in spans)
    end = min(span[1] for span in spans)
    if start.minute % 30:
        start += timedelta(minutes=30 - start.minute % 30)
    length = timedelta(minutes=minutes)
    slots = []
    while start + length <= end:
        slots.append((start.strftime("%H:%M"), (start + length).strftime("%H:%M")))
        start += length
    return slots


def first_slot(people: Sequence[Person], day: date, minutes: int = 30) -> Optional[tuple[str, str]]:
    slots = common_slots(people, day, minutes)
    return slots[0] if slots else None
