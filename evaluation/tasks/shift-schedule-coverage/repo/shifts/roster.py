"""The rota for one day."""

from __future__ import annotations

from typing import Iterable

from shifts.coverage import merge, uncovered
from shifts.model import Shift
from shifts.times import format_clock, parse_clock


class Roster:
    def __init__(self, shifts: Iterable[Shift] = ()) -> None:
        self.shifts = list(shifts)

    @classmethod
    def from_text(cls, text: str) -> Roster:
        """One shift a line; blank lines and lines starting with '#' are skipped."""
        lines = (line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))
        return cls(Shift.parse(line) for line in lines)

    def add(self, line: str) -> Shift:
        shift = Shift.parse(line)
        self.shifts.append(shift)
        return shift

    def staff_at(self, clock: str) -> list[str]:
        minute = parse_clock(clock)
        return sorted(shift.name for shift in self.shifts if shift.covers(minute))

    def gaps(self, opens: str = "08:00", closes: str = "20:00") -> list[str]:
        """Opening hours nobody covers, as "HH:MM-HH:MM"."""
        spans = uncovered(self.shifts, parse_clock(opens), parse_clock(closes))
        return [f"{format_clock(start)}-{format_clock(end)}" for start, end in spans]

    def hours_covered(self) -> float:
        return sum(end - start for start, end in merge(self.shifts)) / 60

    def listing(self) -> list[str]:
        """The rota by name."""
        return [f"{s.name}: {format_clock(s.start)}-{format_clock(s.end)}" for s in sorted(self.shifts)]
