"""Signals that reach the process they were meant for (selfheal/sandbox/processes.py)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from selfheal.sandbox.processes import has_exited, kill_verified, wait_unreaped


def state_of(pid: int) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("State:"):
            return line.split()[1]
    return "?"


def test_an_ended_command_is_waited_for_but_left_a_zombie_until_its_group_is_killed() -> None:
    proc = subprocess.Popen(["true"], start_new_session=True)
    assert wait_unreaped(proc, 10) is True
    # not reaped: its id (and its group's) cannot have gone to another process yet
    assert state_of(proc.pid) == "Z"
    assert has_exited(proc) and proc.returncode is None
    assert proc.wait() == 0


def test_a_command_still_running_at_the_timeout_is_reported_so() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        started = time.monotonic()
        assert wait_unreaped(proc, 0.3) is False
        assert 0.25 <= time.monotonic() - started < 5
        assert not has_exited(proc)
    finally:
        proc.kill()
        proc.wait()


def test_a_process_is_killed_only_while_the_check_holds_for_it() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert kill_verified(proc.pid, lambda pid: False) is False
        assert not has_exited(proc)
        assert kill_verified(proc.pid, lambda pid: pid == proc.pid) is True
        assert proc.wait(10) == -9
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()
