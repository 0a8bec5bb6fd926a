"""Clock times as minutes after midnight."""

from __future__ import annotations

MINUTES_PER_DAY = 24 * 60


def parse_clock(text: str) -> int:
    """Parse "09:30" into 570. "24:00" is allowed as the end of the day."""
    hours, sep, minutes = text.strip().partition(":")
    if not sep or not hours.isdigit() or not minutes.isdigit() or len(minutes) != 2:
        raise ValueError(f"not a clock time: {text!r}")
    h, m = int(hours), int(minutes)
    if h > 24 or m > 59 or (h == 24 and m):
        raise ValueError(f"not a clock time: {text!r}")
    return h * 60 + m


def format_clock(minutes: int) -> str:
    """Format minutes after midnight as "HH:MM"; times past midnight wrap to the next day."""
    if minutes != MINUTES_PER_DAY:
        minutes %= MINUTES_PER_DAY
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
