"""One bucket per client."""

from __future__ import annotations

import math
import time
from typing import Callable

from throttle.bucket import TokenBucket


class RateLimiter:
    def __init__(self, per_second: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def _bucket(self, client: str) -> TokenBucket:
        if client not in self._buckets:
            self._buckets[client] = TokenBucket(self.per_second, self.burst, self._clock)
        return self._buckets[client]

    def allow(self, client: str) -> bool:
        return self._bucket(client).try_acquire()

    def retry_after(self, client: str) -> int:
        """Whole seconds a refused client should wait (the Retry-After header)."""
        return math.ceil(self._bucket(client).wait_time())
