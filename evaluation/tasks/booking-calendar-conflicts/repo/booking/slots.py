"""A booking holds one room over the half-open time range [start, end)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True, order=True)
class Booking:
    start: datetime
    end: datetime
    room: str
    owner: str = ""

    def __post_init__(self) -> None:
        if self.end <= self.start:
            raise ValueError(f"a booking must end after it starts: {self.start} - {self.end}")

    @property
    def duration(self) -> timedelta:
        return self.end - self.start

    def overlaps(self, other: Booking) -> bool:
        """True when both bookings hold the same room at the same moment.

        Ranges are half-open: a booking that ends at 10:00 and one that starts at 10:00 do not
        clash, so meetings can be booked back to back.
        """
        return self.room == other.room and self.start <= other.end and other.start < self.end

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end
