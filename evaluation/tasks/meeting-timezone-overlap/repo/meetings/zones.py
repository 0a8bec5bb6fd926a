"""Fixed UTC offsets written as "UTC+05:30", "UTC-8" or "UTC"."""

from __future__ import annotations

import re
from datetime import timedelta, timezone

OFFSET = re.compile(r"^UTC(?:([+-])(\d{1,2})(?::(\d\d))?)?$")


def parse_offset(text: str) -> timedelta:
    match = OFFSET.match(text.strip().upper())
    if not match:
        raise ValueError(f"not a UTC offset: {text!r}")
    sign_text, hours_text, minutes_text = match.groups()
    if sign_text is None:
        return timedelta(0)
    sign = -1 if sign_text == "-" else 1
    hours, minutes = int(hours_text), int(minutes_text or 0)
    if hours > 14 or minutes >= 60:
        raise ValueError(f"offset out of range: {text!r}")
    return timedelta(minutes=sign * hours * 60 + minutes)


def zone(text: str) -> timezone:
    return timezone(parse_offset(text))


def format_offset(offset: timedelta) -> str:
    total = int(offset.total_seconds()) // 60
    sign = "-" if total < 0 else "+"
    hours, minutes = divmod(abs(total), 60)
    return f"UTC{sign}{hours:02d}:{minutes:02d}"
