"""Merging closed intervals."""

from __future__ import annotations

from typing import NamedTuple


class Interval(NamedTuple):
    start: int
    end: int

    @classmethod
    def parse(cls, text: str) -> Interval:
        """Parse "3-7" into Interval(3, 7)."""
        left, _, right = text.partition("-")
        start, end = int(left), int(right)
        if end < start:
            raise ValueError(f"interval ends before it starts: {text!r}")
        return cls(start, end)

    def __len__(self) -> int:
        return self.end - self.start + 1


def merge(intervals: list[Interval]) -> list[Interval]:
    """Merge overlapping or touching closed intervals into a sorted, disjoint list.

    Two closed intervals touch when one ends exactly where the next starts, e.g. [1, 3]
    and [3, 5]: they share the point 3 and merge into [1, 5].
    """
    merged: list[Interval] = []
    for current in sorted(intervals):
        if merged and current.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Interval(last.start, max(last.end, current.end))
        else:
            merged.append(current)
    return merged


def total_length(intervals: list[Interval]) -> int:
    """Number of integer points covered by at least one interval."""
    return sum(len(interval) for interval in merge(intervals))
