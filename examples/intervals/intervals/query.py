"""Questions about sets of intervals."""

from __future__ import annotations

from intervals.core import Interval, merge


def overlaps(a: Interval, b: Interval) -> bool:
    """True when the two closed intervals share at least one point."""
    return a.start <= b.end and b.start <= a.end


def gaps(intervals: list[Interval], lo: int, hi: int) -> list[Interval]:
    """The parts of [lo, hi] that no interval covers."""
    free: list[Interval] = []
    cursor = lo
    for interval in merge(intervals):
        if interval.end < cursor or interval.start > hi:
            continue
        if interval.start > cursor:
            free.append(Interval(cursor, interval.start - 1))
        cursor = max(cursor, interval.end + 1)
    if cursor <= hi:
        free.append(Interval(cursor, hi))
    return free
