"""A sandbox uid is one session's alone (sandbox/identity.py): a uid no process runs may still be a
live session's (between two commands it has none), so each session holds its uid's reservation
for as long as it lives, against every other session of the machine — in this process and in
another one."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from selfheal.sandbox.identity import SandboxUser

# a range of uids this test owns: no account and, as a rule, no process has them
RANGE = (59_990, 59_992)


def allocate_elsewhere(uid_range: tuple[int, int]) -> str:
    """What `SandboxUser.allocate` gives in a process of its own: the uid, or the error."""
    script = textwrap.dedent(f"""
        from selfheal.sandbox.identity import SandboxUser
        try:
            print(SandboxUser.allocate({uid_range!r}).uid)
        except OSError as exc:
            print(exc)
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    return done.stdout.strip()


def test_a_uid_a_live_session_holds_is_nobody_elses_until_it_is_released() -> None:
    first = SandboxUser.allocate(RANGE)
    second = SandboxUser.allocate(RANGE)
    try:
        assert {first.uid, second.uid} == {59_990, 59_991}  # two live sessions: two uids
        with pytest.raises(OSError, match="no free uid for the sandbox user in 59990-59992"):
            SandboxUser.allocate(RANGE)
        # another process of the machine sees them taken too
        assert allocate_elsewhere(RANGE) == "no free uid for the sandbox user in 59990-59992"
        first.release()
        assert allocate_elsewhere(RANGE) == str(first.uid)
        again = SandboxUser.allocate(RANGE)
        assert again.uid == first.uid
        again.release()
    finally:
        first.release()
        second.release()


def test_a_process_that_ends_frees_its_uid() -> None:
    # the child takes the one uid of the range and exits without releasing it
    assert allocate_elsewhere((59_993, 59_994)) == "59993"
    taken = SandboxUser.allocate((59_993, 59_994))
    try:
        assert taken.uid == 59_993
    finally:
        taken.release()
