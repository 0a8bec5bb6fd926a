"""Bounded capture of a process's output.

A command may print gigabytes; the pipe must still be drained so the process never blocks, but
only a head and a tail are kept. The tail matters most (pytest prints its summary last).
"""

from __future__ import annotations

import queue
import threading
from typing import BinaryIO

CHUNK = 65536


class CappedBuffer:
    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 1024)
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0
        self._head_limit = self.limit // 4
        self._tail_limit = self.limit - self._head_limit

    def feed(self, data: bytes) -> None:
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail += data
        excess = len(self._tail) - self._tail_limit
        if excess > 0:
            del self._tail[:excess]
            self._dropped += excess

    @property
    def truncated(self) -> bool:
        return self._dropped > 0

    def text(self) -> str:
        return capped_text(bytes(self._head), bytes(self._tail), self._dropped)


def capped_text(head: bytes, tail: bytes, dropped: int) -> str:
    """Output kept by a capped reader: head, a note of what was dropped, tail."""
    if not dropped:
        return (head + tail).decode("utf-8", "replace")
    marker = f"\n[... {dropped} bytes of output dropped by selfheal ...]\n".encode()
    return (head + marker + tail).decode("utf-8", "replace")


def drain_in_background(stream: BinaryIO, buffer: CappedBuffer) -> threading.Thread:
    def pump() -> None:
        try:
            while chunk := stream.read1(CHUNK) if hasattr(stream, "read1") else stream.read(CHUNK):
                buffer.feed(chunk)
        except (OSError, ValueError):
            pass
        finally:
            try:
                stream.close()
            except OSError:
                pass

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


class LineQueue:
    """Lines of a long-lived process's output, waited for with a timeout; end of stream sticks."""

    def __init__(self) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()

    def put(self, line: str) -> None:
        self._lines.put(line)

    def end(self) -> None:
        self._lines.put(None)

    def get(self, timeout: float) -> str | None:
        """The next line; None on timeout or once the stream has ended (and every time after)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            self._lines.put(None)
        return line
