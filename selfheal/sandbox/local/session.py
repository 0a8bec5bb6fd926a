"""The local backend's `Session`: the containment built once, at its start, and ended at its close.

The session is made of parts, each in its own module: `IsolationFacts` (isolation.py), `Commands`
(commands.py) and `Files` (files.py); here is how the containment is put together and taken down.
"""

from __future__ import annotations

import os
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from selfheal.sandbox.base import STATE_DIR, Limits, MiB, SandboxInfo
from selfheal.sandbox.bwrap import Bwrap, probe_bwrap
from selfheal.sandbox.cgroup import CgroupSlot, PidsCgroups
from selfheal.sandbox.diskwatch import DiskWatch, combined, disk_usage
from selfheal.sandbox.exceptions import LimitExceeded, SandboxUnavailable
from selfheal.sandbox.identity import SHARED_SCRATCH, Filter, SandboxUser
from selfheal.sandbox.interpreter import CACHE_NAME, reachable_interpreter
from selfheal.sandbox.landlock import Ruleset
from selfheal.sandbox.local.channel import LocalChannel
from selfheal.sandbox.local.commands import Commands
from selfheal.sandbox.local.files import Files
from selfheal.sandbox.local.isolation import IsolationFacts, allowlist, cannot_drop_to, count_user_processes
from selfheal.sandbox.seccomp import no_user_namespaces_program

UNSAFE_HINT = (
    "install bubblewrap (apt-get install bubblewrap), use the docker sandbox, or accept the risk "
    "explicitly (--accept-unsafe-sandbox; the Action's accept-unsafe-sandbox input)"
)


class LocalSession(IsolationFacts, Commands, Files):
    def __init__(
        self,
        root: Path,
        limits: Limits,
        *,
        namespaces: bool,
        extra_env: dict[str, str],
        expose: tuple[Path, ...] = (),
        shown: tuple[Path, ...] = (),
        python: str | None = None,
        require_contained: bool = False,
        accept_unsafe: bool = False,
    ) -> None:
        """`expose`: folders the commands need; `shown`: folders bubblewrap binds back into its
        view (`expose` and more)."""
        if not root.is_dir():
            raise NotADirectoryError(root)
        self.root = root
        self.python: str | None = None  # the host's interpreter runs the tests
        self.limits = limits
        self._extra_env = extra_env
        self._home = root / STATE_DIR / "home"
        self._tmp = root / STATE_DIR / "tmp"
        self._home.mkdir(parents=True, exist_ok=True)
        self._tmp.mkdir(parents=True, exist_ok=True)
        self._channels: list[LocalChannel] = []
        self._running: dict[int, tuple[subprocess.Popen[bytes], CgroupSlot | None]] = {}
        self._running_lock = threading.Lock()
        self._limit_error: LimitExceeded | None = None
        self._closed = False
        # bwrap's --die-with-parent fires when the *thread* that spawned it exits, so every
        # process is started from this one thread, which lives as long as the session.
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="selfheal-spawn")
        self.user: SandboxUser | None = None
        self._cgroups: PidsCgroups | None = None
        self._landlock: Ruleset | None = None
        try:
            self._contain(expose, shown, namespaces, python, require_contained, accept_unsafe)
        except BaseException:
            # what was taken is given back: above all the uid's reservation, which a bot server
            # would otherwise keep for as long as the failure is remembered
            self._abandon()
            raise

    def _contain(
        self,
        expose: tuple[Path, ...],
        shown: tuple[Path, ...],
        namespaces: bool,
        python: str | None,
        require_contained: bool,
        accept_unsafe: bool,
    ) -> None:
        root, limits, extra_env = self.root, self.limits, self._extra_env
        self.user = SandboxUser.allocate() if os.geteuid() == 0 else None
        if self.user is not None:
            self.user.give(root)
        scratch = limits.disk_mb * MiB
        self._bwrap: Bwrap | None = None
        bwrap_note = "disabled"
        if namespaces:
            self._bwrap, bwrap_note = probe_bwrap(
                root, shown or expose, user=self.user, scratch_bytes=scratch
            )
        notes: list[str] = []
        mirror_roots: tuple[Path, ...] = ()
        if self.user is not None and self._bwrap is None and python is not None:
            mirror, why = reachable_interpreter(python)
            if mirror is not None:
                mirror_roots = tuple(p for p in Path(mirror.python).parents if p.name == CACHE_NAME)
                # the tests run on it instead: Session.python
                self.python = mirror.python
                self._extra_env = {**mirror.env, **extra_env}
                expose = tuple(
                    p for p in expose if not any(p == r or r in p.parents for r in mirror.replaces)
                )
                notes.append(f"the tests run on a mirror of {python} that the sandbox's uid can reach")
            elif why:
                notes.append(why)
        if self.user is not None and self._bwrap is None:
            unreachable = self._unreachable(expose, notes) or cannot_drop_to(self.user)
            if unreachable:
                if not accept_unsafe:
                    raise SandboxUnavailable(
                        f"selfheal runs as root, so the local sandbox runs the tests as an unprivileged "
                        f"uid; without namespaces (bubblewrap: {bwrap_note}) {unreachable}. "
                        f"Make it readable by other users, {UNSAFE_HINT}"
                    )
                self.user.release()
                self.user = None  # accepted: the tests run as root
        if self._bwrap is None and (self.user is not None or os.geteuid() != 0):
            # as root with the risk accepted the tests run as root: no view is promised there
            self._landlock, why = allowlist(root, (*shown, *expose), mirror_roots)
            if why:
                notes.append(why)
        program = no_user_namespaces_program() if self.user is not None and self._bwrap is None else None
        self._seccomp = Filter(program) if program else None
        self._cgroups = PidsCgroups.open(limits.max_processes)
        self._nproc_limit: int | None = None
        if self.user is not None:
            self._nproc_limit = limits.max_processes
        elif os.getuid() != 0 and self._cgroups is None:
            # RLIMIT_NPROC counts every process of the user, so the bound sits above today's count.
            self._nproc_limit = count_user_processes(os.getuid()) + limits.max_processes
        self.facts = self._facts(bwrap_note, notes)
        self.info = SandboxInfo.of("local", self.facts)
        # Where GitHub's token sits beside the heal, namespaces that were asked for and cannot be
        # made are a refusal, not a quiet step down: a repository can make them fail (its image,
        # its runner), and without them its tests reach the network and the host's /tmp.
        weaker = require_contained and namespaces and self._bwrap is None and not accept_unsafe
        if weaker or (require_contained and not self.facts.contained and not accept_unsafe):
            if self.facts.contained:
                raise SandboxUnavailable(
                    f"the local sandbox cannot make its namespaces here (bubblewrap: {bwrap_note}), so "
                    f"the tests would reach the network and the host's shared folders "
                    f"({self.info.isolation}); {UNSAFE_HINT}"
                )
            raise SandboxUnavailable(
                f"the local sandbox cannot keep the repository's code away from selfheal's process "
                f"here ({self.info.isolation}); {UNSAFE_HINT}"
            )
        measures = [lambda: disk_usage(self.root)]
        if self.user is not None and self._bwrap is None:
            uid = self.user.uid
            measures += [lambda folder=folder: disk_usage(folder, owner=uid) for folder in SHARED_SCRATCH]
        measure = combined(measures)
        self._disk = DiskWatch(measure, measure() + scratch, self._over_disk_limit)

    def _abandon(self) -> None:
        """A start that failed: the parts made so far, closed; no command ran."""
        if self._cgroups:
            self._cgroups.close()
        if self._landlock is not None:
            self._landlock.close()
        self._spawner.shutdown(wait=False)
        if self.user is not None:
            self.user.release()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for channel in self._channels:
            channel.close()
        self._channels.clear()
        if self.user is not None:
            self.user.kill_all()
            if self._bwrap is None:
                self.user.remove_scratch_files()
        if self._cgroups:
            self._cgroups.close()
        if self._landlock is not None:
            self._landlock.close()
        self._disk.stop()
        self._spawner.shutdown(wait=False)
        if self.user is not None:
            self.user.release()  # last: no process of the uid is left for the next session to meet

    def __enter__(self) -> LocalSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
