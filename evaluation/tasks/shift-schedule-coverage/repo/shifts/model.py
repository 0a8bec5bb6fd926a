"""One person's shift."""

from __future__ import annotations

from dataclasses import dataclass

from shifts.times import MINUTES_PER_DAY, parse_clock


@dataclass(frozen=True, order=True)
class Shift:
    name: str
    start: int
    end: int

    @classmethod
    def parse(cls, line: str) -> Shift:
        """Parse "Ana 09:00-17:00". A shift that ends before it starts runs past midnight."""
        name, _, span = line.strip().rpartition(" ")
        first, sep, last = span.partition("-")
        if not name or not sep:
            raise ValueError(f"not a shift: {line!r}")
        start, end = parse_clock(first), parse_clock(last)
        if end <= start:
            end += MINUTES_PER_DAY
        return cls(name, start, end)

    @property
    def minutes(self) -> int:
        return self.end - self.start

    def covers(self, minute: int) -> bool:
        """True when the shift is on at `minute` (a time of day) on its first or second day."""
        return self.start <= minute < self.end or self.start <= minute + MINUTES_PER_DAY < self.end
