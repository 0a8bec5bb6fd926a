"""A long-lived command of a local session (the screening worker), spoken to line by line."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading

from selfheal.sandbox.cgroup import CgroupSlot
from selfheal.sandbox.diskwatch import DiskWatch
from selfheal.sandbox.output import CappedBuffer, LineQueue, drain_in_background
from selfheal.sandbox.processes import has_exited


def kill_everything(proc: subprocess.Popen[bytes], slot: CgroupSlot | None) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if slot:
        slot.kill_all()


class LocalChannel:
    def __init__(
        self, proc: subprocess.Popen[bytes], slot: CgroupSlot | None, limit: int, disk: DiskWatch
    ) -> None:
        self._proc = proc
        self._slot = slot
        self._disk = disk
        self._lines = LineQueue()
        self._stderr = CappedBuffer(limit)
        self._stderr_reader = drain_in_background(proc.stderr, self._stderr)
        self._stdout_reader = threading.Thread(target=self._read_lines, daemon=True)
        self._stdout_reader.start()
        self._closed = False
        disk.begin()  # a worker writes while it lives: watched the whole time

    def _read_lines(self) -> None:
        try:
            for raw in self._proc.stdout:
                self._lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        except (OSError, ValueError):
            pass
        self._lines.end()

    def send(self, line: str) -> None:
        try:
            self._proc.stdin.write(line.encode("utf-8") + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # a dead worker shows up as end of stream on receive()

    def receive(self, timeout: float) -> str | None:
        return self._lines.get(timeout)

    @property
    def alive(self) -> bool:
        return not has_exited(self._proc)  # not reaped: close() still kills its group by its id

    def kill(self) -> None:
        kill_everything(self._proc, self._slot)

    def close(self) -> str:
        if not self._closed:
            self._closed = True
            self._disk.end()
            with contextlib.suppress(OSError, ValueError):
                self._proc.stdin.close()
            kill_everything(self._proc, self._slot)
            self._proc.wait()
            self._stderr_reader.join(timeout=5)
            if self._slot:
                self._slot.remove()
        return self._stderr.text()
