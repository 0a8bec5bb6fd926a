"""Signals that reach the process they were meant for.

A process id is reused once its process is reaped, and quickly where pid_max is small (32768)
and tests fork thousands of processes. So a command's process group is killed while its leader
is still a zombie (waited for without being reaped: its id, and the group's, cannot be reused
yet), and a process found by its uid or its cgroup is signalled through a pidfd opened before
the check, so that the check and the signal are about the same process.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable


def wait_unreaped(proc: subprocess.Popen[bytes], timeout: float | None) -> bool:
    """Wait until `proc` ends without reaping it; True when it ended within `timeout`."""
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:  # an old kernel: poll instead
        return _poll_unreaped(proc, timeout)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(None if timeout is None else max(0, int(timeout * 1000))))
    finally:
        os.close(fd)


def _poll_unreaped(proc: subprocess.Popen[bytes], timeout: float | None) -> bool:
    deadline = None if timeout is None else time.monotonic() + timeout
    while not has_exited(proc):
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def has_exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether `proc` has ended, without reaping it (Popen.poll would)."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def kill_verified(pid: int, still_ours: Callable[[int], bool]) -> bool:
    """SIGKILL `pid` if `still_ours(pid)` holds for the very process the pid names now."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return False
    except OSError:  # no pidfd here: check, then kill (a narrow window, as before)
        if not still_ours(pid):
            return False
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            return True
        return False
    try:
        if not still_ours(pid):
            return False
        signal.pidfd_send_signal(fd, signal.SIGKILL)
        return True
    except (ProcessLookupError, PermissionError):
        return False
    finally:
        os.close(fd)
