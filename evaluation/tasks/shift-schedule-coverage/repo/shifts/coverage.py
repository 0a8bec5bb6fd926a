"""Merging shifts into the spans of time somebody is on."""

from __future__ import annotations

from typing import Iterable

from shifts.model import Shift


def merge(shifts: Iterable[Shift]) -> list[tuple[int, int]]:
    """The spans covered by at least one shift: sorted, disjoint, touching spans joined."""
    spans: list[tuple[int, int]] = []
    for shift in sorted(shifts):
        if spans and shift.start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], shift.end))
        else:
            spans.append((shift.start, shift.end))
    return spans


def uncovered(shifts: Iterable[Shift], opens: int, closes: int) -> list[tuple[int, int]]:
    """The parts of [opens, closes) that no shift covers."""
    gaps = []
    cursor = opens
    for start, end in merge(shifts):
        if end <= cursor:
            continue
        if start >= closes:
            break
        if start > cursor:
            gaps.append((cursor, start))
        cursor = max(cursor, end)
    if cursor < closes:
        gaps.append((cursor, closes))
    return gaps
