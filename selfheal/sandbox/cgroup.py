"""A pids cgroup per command, where the machine lets us create one.

RLIMIT_NPROC does not bind root (the kernel exempts it), so as root a fork bomb is only contained
by a pids cgroup. The cgroup also finds every process a command started, including ones that left
its process group with setsid, so they can all be killed. cgroup v1 (a `pids` hierarchy) and v2
(a delegated subtree with the pids controller enabled) are both supported; where neither is
writable, `PidsCgroups.open()` returns None and the caller says so in its isolation statement.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from selfheal.sandbox.processes import kill_verified


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, fstype, super options) for every cgroup mount."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) >= 5 and len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
            found.append((fields[4], rest[0], rest[2]))
    return found


def _own_cgroups() -> dict[str, str]:
    """controller list ("" for v2) -> path of this process's cgroup."""
    own = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            own[controllers] = path
    except (OSError, ValueError):
        pass
    return own


def _pids_base() -> tuple[Path, str] | None:
    own = _own_cgroups()
    for mount_point, fstype, options in _mounts():
        if fstype == "cgroup" and "pids" in options.split(","):
            for controllers, path in own.items():
                if "pids" in controllers.split(","):
                    return Path(mount_point) / path.lstrip("/"), "v1"
    for mount_point, fstype, _ in _mounts():
        if fstype == "cgroup2" and "" in own:
            base = Path(mount_point) / own[""].lstrip("/")
            try:
                if "pids" in (base / "cgroup.subtree_control").read_text().split():
                    return base, "v2"
            except OSError:
                continue
    return None


@dataclass
class CgroupSlot:
    """The cgroup of one command."""

    path: Path
    version: str

    @property
    def procs_file(self) -> str:
        return str(self.path / "cgroup.procs")

    def members(self) -> list[int]:
        try:
            return [int(pid) for pid in Path(self.procs_file).read_text().split()]
        except (OSError, ValueError):
            return []

    def holds(self, pid: int) -> bool:
        """Whether `pid` is in this cgroup now (from the process's side: one small read)."""
        tail = f"/{self.path.parent.name}/{self.path.name}"
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            return False
        return any(line.endswith(tail) for line in lines)

    def kill_all(self, attempts: int = 200) -> None:
        kill_file = self.path / "cgroup.kill"
        if self.version == "v2" and kill_file.exists():
            try:
                kill_file.write_text("1")
            except OSError:
                pass
        # A fork bomb keeps spawning while we kill; the pids limit bounds it, so loop until empty.
        for _ in range(attempts):
            members = self.members()
            if not members:
                return
            for pid in members:
                kill_verified(pid, self.holds)
            time.sleep(0.01)

    def remove(self) -> None:
        self.kill_all()
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def _remove_orphans(base: Path) -> None:
    """Empty cgroups left by a selfheal process that was killed before it could clean up.

    Only empty ones: a cgroup with members may belong to a selfheal we cannot see (another pid
    namespace), and its processes are not ours to kill.
    """
    try:
        entries = [e for e in base.glob("selfheal-*-*") if e.is_dir()]
    except OSError:
        return
    for entry in entries:
        owner = entry.name.split("-")[1]
        if not owner.isdigit() or Path(f"/proc/{owner}").exists():
            continue
        with contextlib.suppress(OSError):
            for child in entry.iterdir():
                if child.is_dir():
                    child.rmdir()
            entry.rmdir()


class PidsCgroups:
    """Parent cgroup of one sandbox session; hands out one slot per command."""

    def __init__(self, parent: Path, version: str, max_processes: int) -> None:
        self.parent = parent
        self.version = version
        self.max_processes = max_processes
        self._counter = itertools.count()

    @classmethod
    def open(cls, max_processes: int) -> PidsCgroups | None:
        found = _pids_base()
        if found is None:
            return None
        base, version = found
        _remove_orphans(base)
        parent = base / f"selfheal-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            parent.mkdir()
            if version == "v2":
                (parent / "cgroup.subtree_control").write_text("+pids")
            cls._probe(parent, version)
        except OSError:
            try:
                parent.rmdir()
            except OSError:
                pass
            return None
        return cls(parent, version, max_processes)

    @staticmethod
    def _probe(parent: Path, version: str) -> None:
        probe = CgroupSlot(parent / "probe", version)
        probe.path.mkdir()
        try:
            (probe.path / "pids.max").write_text("1")
        finally:
            probe.path.rmdir()

    def new_slot(self) -> CgroupSlot | None:
        slot = CgroupSlot(self.parent / f"cmd-{next(self._counter)}", self.version)
        try:
            slot.path.mkdir()
            (slot.path / "pids.max").write_text(str(self.max_processes))
        except OSError:
            return None
        return slot

    def close(self) -> None:
        if not self.parent.exists():
            return
        for child in self.parent.iterdir():
            if child.is_dir():
                CgroupSlot(child, self.version).remove()
        CgroupSlot(self.parent, self.version).remove()
