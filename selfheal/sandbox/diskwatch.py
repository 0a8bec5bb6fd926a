"""How much the commands of a local session wrote, watched while they run.

No local mechanism bounds a folder's size without privileges a sandbox cannot count on (quotas,
loop mounts), so the session measures: RLIMIT_FSIZE bounds any single file in the kernel, and
this watcher adds up the workspace (and, where commands share the machine's scratch folders, the
session user's files there) a few times a second while a command runs, and once more when it
ends. Over the limit, the session's commands are killed and the session refuses to run more.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

MAX_ENTRIES = 500_000  # a tree larger than this counts as over any sensible limit


def disk_usage(root: Path, *, owner: int | None = None) -> int:
    """Bytes allocated under `root` (blocks, so a sparse file counts what it really takes), each
    inode once, no link followed. With `owner`, only entries of that uid are counted (and only
    their subtrees are walked)."""
    total, seen, entries = 0, set(), 0
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            listing = os.scandir(folder)
        except OSError:
            continue
        with listing:
            for entry in listing:
                entries += 1
                if entries > MAX_ENTRIES:
                    return 1 << 62
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if owner is not None and info.st_uid != owner:
                    continue
                key = (info.st_dev, info.st_ino)
                if key in seen:
                    continue
                seen.add(key)
                total += info.st_blocks * 512
                if stat.S_ISDIR(info.st_mode):
                    stack.append(entry.path)
    return total


class DiskWatch:
    """Measures `measure()` while `active()`, calling `exceeded(usage)` once it passes `limit`."""

    def __init__(
        self,
        measure: Callable[[], int],
        limit: int,
        exceeded: Callable[[int], None],
        *,
        interval: float = 0.1,
    ) -> None:
        self.measure = measure
        self.limit = limit
        self._exceeded = exceeded
        self._interval = interval
        self._active = 0
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._stopped = False
        self.tripped = False
        self._thread = threading.Thread(target=self._watch, name="selfheal-diskwatch", daemon=True)
        self._thread.start()

    def check(self) -> bool:
        """Measure now; True when over the limit (the exceeded callback has then run)."""
        usage = self.measure()
        if usage > self.limit and not self.tripped:
            self.tripped = True
            self._exceeded(usage)
        return self.tripped

    def begin(self) -> None:
        with self._lock:
            self._active += 1
            self._wake.notify()

    def end(self) -> None:
        with self._lock:
            self._active -= 1

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._wake.notify()

    def _watch(self) -> None:
        while True:
            with self._lock:
                while not self._active and not self._stopped:
                    self._wake.wait()
                if self._stopped:
                    return
            started = time.monotonic()
            if self.check():
                return
            # A big tree takes a while to add up: measure no more than a fifth of the time.
            spent = time.monotonic() - started
            time.sleep(max(self._interval, 4 * spent))


def combined(measures: Iterable[Callable[[], int]]) -> Callable[[], int]:
    parts = tuple(measures)
    return lambda: sum(part() for part in parts)
