"""Equal-width bins over [lo, hi].

Every bin is half-open, [edge, next edge), except the last, which also holds hi itself, so
that the largest value of the data is counted.
"""

from __future__ import annotations

from typing import Optional, Sequence


def bin_index(value: float, lo: float, hi: float, bins: int) -> Optional[int]:
    """The bin `value` falls into, or None when it is outside [lo, hi]."""
    if bins < 1 or hi <= lo:
        raise ValueError("need at least one bin and lo < hi")
    if value < lo or value > hi:
        return None
    width = (hi - lo) / bins
    return min(int((value - lo) / width), bins)


def bin_edges(lo: float, hi: float, bins: int) -> list[float]:
    width = (hi - lo) / bins
    return [lo + i * width for i in range(bins)] + [hi]


def histogram(
    values: Sequence[float], bins: int = 10, lo: Optional[float] = None, hi: Optional[float] = None
) -> list[int]:
    """Counts per bin; lo and hi default to the smallest and largest value."""
    if not values:
        return [0] * bins
    lo = min(values) if lo is None else lo
    hi = max(values) if hi is None else hi
    if hi == lo:
        hi = lo + 1
    counts = [0] * bins
    for value in values:
        index = bin_index(value, lo, hi, bins)
        if index is not None:
            counts[index] += 1
    return counts


def render(counts: Sequence[int], edges: Sequence[float], width: int = 20) -> str:
    """One line per bin: "[lo, hi) ####"."""
    peak = max(counts) or 1
    lines = []
    for count, left, right in zip(counts, edges, edges[1:]):
        bar = "#" * round(count / peak * width)
        lines.append(f"[{left:g}, {right:g}) {bar}".rstrip())
    return "\n".join(lines)
