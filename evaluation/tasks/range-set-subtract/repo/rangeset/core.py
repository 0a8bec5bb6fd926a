"""A set of integers kept as sorted, disjoint, non-adjacent half-open ranges [lo, hi)."""

from __future__ import annotations

from typing import Iterable, Iterator


class RangeSet:
    def __init__(self, ranges: Iterable[tuple[int, int]] = ()) -> None:
        self._ranges: list[tuple[int, int]] = []
        for lo, hi in ranges:
            self.add(lo, hi)

    def __repr__(self) -> str:
        return f"RangeSet({self._ranges!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RangeSet) and self._ranges == other._ranges

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._ranges)

    def __len__(self) -> int:
        """How many integers the set holds."""
        return sum(hi - lo for lo, hi in self._ranges)

    def __contains__(self, value: int) -> bool:
        return any(lo <= value < hi for lo, hi in self._ranges)

    def add(self, lo: int, hi: int) -> None:
        """Add [lo, hi), merging with every range it overlaps or touches."""
        if hi <= lo:
            return
        kept = []
        for a, b in self._ranges:
            if b < lo or a > hi:
                kept.append((a, b))
            else:
                lo, hi = min(lo, a), max(hi, b)
        kept.append((lo, hi))
        self._ranges = sorted(kept)

    def remove(self, lo: int, hi: int) -> None:
        """Remove [lo, hi); ranges that straddle it keep their parts outside it."""
        if hi <= lo:
            return
        kept = []
        for a, b in self._ranges:
            if b <= lo or a >= hi:
                kept.append((a, b))
                continue
            if a < lo:
                kept.append((a, lo))
            if b > hi:
                kept.append((hi + 1, b))
        self._ranges = kept

    def union(self, other: RangeSet) -> RangeSet:
        result = RangeSet(self._ranges)
        for lo, hi in other:
            result.add(lo, hi)
        return result

    def difference(self, other: RangeSet) -> RangeSet:
        result = RangeSet(self._ranges)
        for lo, hi in other:
            result.remove(lo, hi)
        return result
