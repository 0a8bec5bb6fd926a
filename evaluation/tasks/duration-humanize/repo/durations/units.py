"""Durations as whole seconds."""

from __future__ import annotations

import re

UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
PART = re.compile(r"(\d+)\s*([dhms])")


def split(seconds: int) -> dict[str, int]:
    """{'d': days, 'h': hours, 'm': minutes, 's': seconds}."""
    if seconds < 0:
        raise ValueError("durations are not negative")
    parts = {}
    for name, size in UNITS:
        parts[name], seconds = divmod(seconds, size)
    return parts


def humanize(seconds: int, precision: int = 2) -> str:
    """The `precision` largest non-zero units: 3725 -> '1h 2m'; 0 -> '0s'."""
    words = [f"{value}{name}" for name, value in split(seconds).items() if value]
    return " ".join(words[:precision]) or "0s"


def parse_duration(text: str) -> int:
    """'1h 30m', '2d4h' or '90s' -> seconds."""
    compact = text.replace(" ", "").lower()
    matches = list(PART.finditer(compact))
    if not matches or "".join(m.group(0) for m in matches) != compact:
        raise ValueError(f"not a duration: {text!r}")
    sizes = dict(UNITS)
    return sum(int(m.group(1)) * sizes[m.group(2)] for m in matches)


def format_clock(seconds: int) -> str:
    """'HH:MM:SS'; hours are not wrapped at 24 (90000 -> '25:00:00')."""
    if seconds < 0:
        raise ValueError("durations are not negative")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(seconds, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"
