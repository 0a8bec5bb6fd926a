"""People and their working hours, in their own local time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timezone

from meetings.zones import zone


@dataclass(frozen=True)
class Person:
    name: str
    offset: str
    starts: time = time(9, 0)
    ends: time = time(17, 0)

    def working_hours_utc(self, day: date) -> tuple[datetime, datetime]:
        """Start and end of their working day `day` (their local date), in UTC."""
        local = zone(self.offset)
        start = datetime.combine(day, self.starts, tzinfo=local)
        end = datetime.combine(day, self.ends, tzinfo=local)
        return start.astimezone(timezone.utc), end.astimezone(timezone.utc)
