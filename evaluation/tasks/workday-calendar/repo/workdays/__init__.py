"""Working days between dates, with weekends and holidays off."""

from workdays.calendar import WorkCalendar

__all__ = ["WorkCalendar"]
