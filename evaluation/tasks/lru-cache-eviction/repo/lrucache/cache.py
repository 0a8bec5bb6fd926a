"""A least-recently-used cache: when full, adding an entry evicts the one used longest ago.

Both reads (get) and writes (put) count as use.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Hashable

_MISSING = object()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    evictions: int = 0


class LRUCache:
    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.stats = CacheStats()
        self._data: OrderedDict[Hashable, Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: Hashable) -> bool:
        """Membership does not count as use."""
        return key in self._data

    def keys(self) -> list[Hashable]:
        """Keys from least to most recently used."""
        return list(self._data)

    def get(self, key: Hashable, default: Any = None) -> Any:
        value = self._data.get(key, _MISSING)
        if value is _MISSING:
            self.stats.misses += 1
            return default
        self.stats.hits += 1
        return value

    def put(self, key: Hashable, value: Any) -> None:
        if key in self._data:
            self._data.move_to_end(key)
        self._data[key] = value
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)
            self.stats.evictions += 1

    def get_or_load(self, key: Hashable, loader: Callable[[Hashable], Any]) -> Any:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            value = loader(key)
            self.put(key, value)
        return value


def cached(capacity: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Memoise a function of hashable positional arguments in an LRUCache."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        cache = LRUCache(capacity)

        @functools.wraps(function)
        def wrapper(*args: Hashable) -> Any:
            return cache.get_or_load(args, lambda key: function(*key))

        wrapper.cache = cache  # type: ignore[attr-defined]
        return wrapper

    return decorate
