from __future__ import annotations

import threading


class CountDownLatch:
    """Lets threads wait until `count` events have happened.

    `count_down()` records one event; once `count` of them have been recorded, every `wait()`
    returns, now and later. A latch made with count 0 is open from the start. Extra count-downs
    are ignored.
    """

    def __init__(self, count: int) -> None:
        if count < 0:
            raise ValueError("count must not be negative")
        self._count = count
        self._lock = threading.Lock()
        self._open = threading.Event()
        if count == 0:
            self._open.set()

    @property
    def count(self) -> int:
        with self._lock:
            return self._count

    def count_down(self) -> None:
        with self._lock:
            if self._count > 0:
                self._count -= 1
            if self._count < 0:
                self._open.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the latch opens (or `timeout` seconds pass); True when it is open."""
        return self._open.wait(timeout)
