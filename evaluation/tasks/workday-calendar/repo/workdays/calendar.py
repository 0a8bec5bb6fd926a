from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date, timedelta

ONE_DAY = timedelta(days=1)


class WorkCalendar:
    """Which days are worked: Monday to Friday by default, minus the holidays."""

    def __init__(self, holidays: Iterable[date] = (), weekend: Iterable[int] = (5, 6)) -> None:
        self.holidays = frozenset(holidays)
        self.weekend = frozenset(weekend)

    def is_workday(self, day: date) -> bool:
        return day.weekday() not in self.weekend and day not in self.holidays

    def next_workday(self, day: date) -> date:
        """The first workday on or after `day`."""
        while not self.is_workday(day):
            day += ONE_DAY
        return day

    def workdays(self, start: date, end: date) -> Iterator[date]:
        """Workdays from `start` (included) up to `end` (excluded), in order."""
        day = self.next_workday(start)
        while day != end:
            yield day
            day = self.next_workday(day + ONE_DAY)

    def count(self, start: date, end: date) -> int:
        """How many workdays lie in [start, end)."""
        return sum(1 for _ in self.workdays(start, end))

    def add(self, start: date, days: int) -> date:
        """The workday `days` workdays after `start` (start itself moved to a workday first)."""
        day = self.next_workday(start)
        for _ in range(days):
            day = self.next_workday(day + ONE_DAY)
        return day
