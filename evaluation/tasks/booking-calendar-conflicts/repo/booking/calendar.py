"""A calendar of bookings for several rooms."""

from __future__ import annotations

import bisect
from datetime import datetime, timedelta

from booking.slots import Booking


class BookingConflict(Exception):
    """Raised when a new booking clashes with existing ones."""

    def __init__(self, booking: Booking, clashes: list[Booking]) -> None:
        super().__init__(f"{booking.room} is taken: {len(clashes)} clashing booking(s)")
        self.booking = booking
        self.clashes = clashes


class Calendar:
    def __init__(self) -> None:
        self._bookings: list[Booking] = []

    def __len__(self) -> int:
        return len(self._bookings)

    def conflicts(self, booking: Booking) -> list[Booking]:
        """Existing bookings that clash with `booking`."""
        return [existing for existing in self._bookings if booking.overlaps(existing)]

    def book(self, booking: Booking) -> Booking:
        clashes = self.conflicts(booking)
        if clashes:
            raise BookingConflict(booking, clashes)
        bisect.insort(self._bookings, booking)
        return booking

    def cancel(self, booking: Booking) -> None:
        self._bookings.remove(booking)

    def bookings_for(self, room: str) -> list[Booking]:
        return [booking for booking in self._bookings if booking.room == room]

    def is_free(self, room: str, moment: datetime) -> bool:
        return not any(booking.contains(moment) for booking in self.bookings_for(room))

    def free_slots(
        self,
        room: str,
        day_start: datetime,
        day_end: datetime,
        min_length: timedelta = timedelta(0),
    ) -> list[tuple[datetime, datetime]]:
        """Free ranges of `room` between day_start and day_end, at least min_length long."""
        free = []
        cursor = day_start
        for booking in self.bookings_for(room):
            if booking.end <= cursor or booking.start >= day_end:
                continue
            if booking.start > cursor:
                free.append((cursor, booking.start))
            cursor = max(cursor, booking.end)
        if cursor < day_end:
            free.append((cursor, day_end))
        return [(start, end) for start, end in free if end - start >= min_length and end > start]
