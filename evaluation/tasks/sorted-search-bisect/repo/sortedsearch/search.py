"""Binary search over sequences sorted by `key` (identity by default)."""

from __future__ import annotations

from typing import Any, Callable, MutableSequence, Optional, Sequence

Key = Optional[Callable[[Any], Any]]


def _identity(item: Any) -> Any:
    return item


def lower_bound(items: Sequence[Any], target: Any, key: Key = None) -> int:
    """The first index whose item is >= target; len(items) when there is none."""
    key = key or _identity
    lo, hi = 0, len(items) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if key(items[mid]) < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def upper_bound(items: Sequence[Any], target: Any, key: Key = None) -> int:
    """The first index whose item is > target; len(items) when there is none."""
    key = key or _identity
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if key(items[mid]) <= target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def contains(items: Sequence[Any], target: Any, key: Key = None) -> bool:
    index = lower_bound(items, target, key)
    return index < len(items) and (key or _identity)(items[index]) == target


def count_between(items: Sequence[Any], low: Any, high: Any, key: Key = None) -> int:
    """How many items have low <= key(item) <= high."""
    if high < low:
        return 0
    return upper_bound(items, high, key) - lower_bound(items, low, key)


def insert_sorted(items: MutableSequence[Any], item: Any, key: Key = None) -> int:
    """Insert before any equal items; returns the index used."""
    index = lower_bound(items, (key or _identity)(item), key)
    items.insert(index, item)
    return index
