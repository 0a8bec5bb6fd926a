"""Entries live for a number of seconds measured on an injectable monotonic clock."""

from __future__ import annotations

import time
from typing import Any, Callable, Hashable, Optional

_MISSING = object()


class TTLCache:
    def __init__(self, default_ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        if default_ttl <= 0:
            raise ValueError("default_ttl must be positive")
        self.default_ttl = default_ttl
        self._clock = clock
        self._entries: dict[Hashable, tuple[Any, float]] = {}

    def set(self, key: Hashable, value: Any, ttl: Optional[float] = None) -> None:
        """Store `value` for `ttl` seconds (default_ttl when None).

        An entry set at time t with ttl s can be read while the clock is below t + s; a ttl
        of 0 stores an entry that has already expired.
        """
        lifetime = ttl or self.default_ttl
        if lifetime < 0:
            raise ValueError("ttl must not be negative")
        self._entries[key] = (value, self._clock() + lifetime)

    def get(self, key: Hashable, default: Any = None) -> Any:
        entry = self._entries.get(key)
        if entry is None:
            return default
        value, expires = entry
        if self._clock() >= expires:
            del self._entries[key]
            return default
        return value

    def purge(self) -> int:
        """Drop expired entries; returns how many went."""
        now = self._clock()
        expired = [key for key, (_, expires) in self._entries.items() if now >= expires]
        for key in expired:
            del self._entries[key]
        return len(expired)

    def __len__(self) -> int:
        self.purge()
        return len(self._entries)

    def get_or_compute(
        self,
        key: Hashable,
        compute: Callable[[], Any],
        ttl: Optional[float] = None,
        failure_ttl: float = 0,
    ) -> Any:
        """The cached value, or compute() stored for `ttl`.

        When compute() raises, None is stored for `failure_ttl` seconds (0: not at all, so the
        next call tries again) and the exception propagates.
        """
        value = self.get(key, _MISSING)
        if value is not _MISSING:
            return value
        try:
            value = compute()
        except Exception:
            self.set(key, None, failure_ttl)
            raise
        self.set(key, value, ttl)
        return value
