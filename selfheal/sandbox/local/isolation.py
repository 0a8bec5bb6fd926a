"""What a local session's containment is made of, and the facts reported of it.

The session (session.py) builds the containment from these pieces; `_facts` says what it
amounts to, each fact checkable from inside the sandbox.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

from selfheal.sandbox.base import Isolation
from selfheal.sandbox.bwrap import system_paths
from selfheal.sandbox.identity import SandboxUser, closed_folder, readable_by_others
from selfheal.sandbox.landlock import Ruleset, build_ruleset


class IsolationFacts:
    """The part of `LocalSession` that checks what the sandbox's uid can reach and states the
    isolation in force."""

    def _unreachable(self, expose: tuple[Path, ...], notes: list[str]) -> str:
        closed = closed_folder(self.root.parent)
        if closed is not None:
            return f"that uid cannot reach the workspace {self.root} ({closed} is closed to other users)"
        for path in expose:
            if path.exists() and not readable_by_others(path):
                blocker = closed_folder(path.parent)
                why = f"{blocker} is closed to other users" if blocker else "it is not readable by others"
                return f"that uid cannot reach {path}, which the tests need ({'; '.join([why, *notes])})"
        return ""

    def _facts(self, bwrap_note: str, more: list[str]) -> Isolation:
        limits, user, bwrap = self.limits, self.user, self._bwrap
        notes = [
            *(more if user is not None else ()),
            "own process group",
            f"rlimits: address space {limits.memory_mb} MiB, file size "
            f"{min(limits.max_file_mb, limits.disk_mb)} MiB, CPU time from each command's timeout",
        ]
        if bwrap is None:
            notes.append(f"no namespaces ({bwrap_note})")
        processes = []
        if self._cgroups is not None:
            processes.append(f"pids cgroup ({limits.max_processes} processes per command)")
        if user is not None:
            processes.append(f"RLIMIT_NPROC ({limits.max_processes} processes for the session's uid)")
        elif self._nproc_limit is not None:
            processes.append(f"RLIMIT_NPROC (+{limits.max_processes} processes)")
        root = os.geteuid() == 0
        if bwrap is not None:
            writes = (
                "the workspace only (private /tmp and /dev/shm of "
                f"{limits.disk_mb} MiB each); of the host, only the system's programs and libraries, "
                "the files of /etc programs need to start and the test interpreter, read-only"
            )
        elif self._landlock is not None:
            writes = (
                "the workspace and /dev/shm"
                + (" (the session's files there are deleted at its end)" if user is not None else "")
                + "; of the rest of the host (Landlock), only the system's programs and libraries, the "
                "files of /etc programs need to start and the test interpreter, read-only"
            )
        elif user is not None:
            writes = (
                "the workspace and the world-writable /tmp, /var/tmp and /dev/shm (the session's "
                "files there are deleted at its end); elsewhere only what any account-less user may"
            )
        else:
            writes = "everything " + ("root" if root else "selfheal's user") + " may write"
        return Isolation(
            uid=user.uid if user is not None else os.getuid(),
            separate_user=user is not None,
            capabilities=("all",) if root and user is None else (),
            namespaces=bwrap.namespaces if bwrap is not None else (),
            network=bwrap is None,
            filesystem=writes,
            read_only_elsewhere=bwrap is not None or self._landlock is not None,
            disk_limit_mb=limits.disk_mb,
            processes=", ".join(processes) or "unbounded (root without a writable pids cgroup)",
            nested_user_namespaces=not (
                (bwrap is not None and bwrap.blocks_user_namespaces) or (user is not None and self._seccomp)
            ),
            notes=tuple(notes),
        )


def count_user_processes(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += 1
    return count


def allowlist(
    workspace: Path, needed: tuple[Path, ...], mirrors: tuple[Path, ...]
) -> tuple[Ruleset | None, str]:
    """The Landlock ruleset that shows the tests what bubblewrap's view would, or why there is none."""
    read = (*system_paths(), *needed, *mirrors, Path("/proc"))
    try:
        # not /tmp nor /var/tmp: shared by every user, they hold other sessions' files (TMPDIR is
        # in the workspace); /dev/shm for the semaphores of multiprocessing
        return build_ruleset(read, (workspace, Path("/dev/shm")), devices=(Path("/dev"),)), ""
    except OSError as exc:
        return None, f"no Landlock ({exc.strerror or exc}): the tests may read whatever file modes allow"


def cannot_drop_to(user: SandboxUser) -> str:
    """Why a child cannot become `user` here (no CAP_SETUID, a seccomp profile), or ""."""
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", "exit 0"], preexec_fn=user.drop_to, capture_output=True, timeout=20
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"this process cannot switch to that uid ({exc})"
    return "" if done.returncode == 0 else f"a process switched to that uid fails (exit {done.returncode})"
