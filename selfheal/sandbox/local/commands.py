"""The commands of a local session: spawned contained, bounded, and killed as a group."""

from __future__ import annotations

import errno
import math
import os
import resource
import shutil
import signal
import subprocess
import time
from pathlib import Path

from selfheal.sandbox.base import ExecResult, MiB
from selfheal.sandbox.cgroup import CgroupSlot
from selfheal.sandbox.env import build_environment, expand_path
from selfheal.sandbox.exceptions import LimitExceeded
from selfheal.sandbox.local.channel import LocalChannel, kill_everything
from selfheal.sandbox.output import CappedBuffer, drain_in_background
from selfheal.sandbox.processes import wait_unreaped


class Commands:
    """The part of `LocalSession` that runs commands and opens channels."""

    def run(
        self,
        argv: list[str],
        *,
        timeout: float,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
    ) -> ExecResult:
        self._check_usable()
        started = time.monotonic()
        missing = self._missing_executable(argv, env, cwd)
        if missing:
            return ExecResult(127, "", missing, time.monotonic() - started, argv=tuple(argv))
        slot = self._cgroups.new_slot() if self._cgroups else None
        try:
            proc = self._spawn(argv, env=env, cwd=cwd, cpu_seconds=timeout, slot=slot, stdin=None)
        except (OSError, subprocess.SubprocessError) as exc:
            if slot:
                slot.remove()
            return ExecResult(
                127, "", self._spawn_failure(argv[0], exc), time.monotonic() - started, argv=tuple(argv)
            )
        with self._running_lock:
            self._running[proc.pid] = (proc, slot)
        out, err = CappedBuffer(self.limits.output_bytes), CappedBuffer(self.limits.output_bytes)
        readers = [drain_in_background(proc.stdout, out), drain_in_background(proc.stderr, err)]
        timed_out = False
        self._disk.begin()
        try:
            timed_out = not wait_unreaped(proc, timeout)
        finally:
            self._disk.end()
            # Ends leftovers too: a test's background process must not outlive its run. The
            # leader is not reaped before its group is killed: its id cannot have been reused.
            kill_everything(proc, slot)
            returncode = proc.wait()
            with self._running_lock:
                self._running.pop(proc.pid, None)
            for reader in readers:
                reader.join(timeout=5)
            if slot:
                slot.remove()
            if self.user is not None and not any(c.alive for c in self._channels):
                self.user.kill_all()  # daemons that left the group (and, without cgroups, everything)
        self._disk.check()
        self._check_usable()
        return ExecResult(
            returncode=-signal.SIGKILL if timed_out else returncode,
            stdout=out.text(),
            stderr=err.text(),
            duration_s=time.monotonic() - started,
            timed_out=timed_out,
            truncated=out.truncated or err.truncated,
            argv=tuple(argv),
        )

    def _spawn_failure(self, program: str, exc: OSError | subprocess.SubprocessError) -> str:
        if not isinstance(exc, OSError):
            return f"selfheal: cannot run {program!r}: {exc}"
        if self.user is not None and exc.errno == errno.EACCES:
            return (
                f"selfheal: cannot run {program!r}: permission denied for the sandbox's uid "
                f"{self.user.uid} (selfheal runs as root; the tests never do)"
            )
        return f"selfheal: cannot run {program!r}: {exc.strerror or exc}"

    def _check_usable(self) -> None:
        if self._limit_error is not None:
            raise self._limit_error

    def _over_disk_limit(self, usage: int) -> None:
        self._limit_error = LimitExceeded(
            f"the tests wrote more than the sandbox's disk limit of {self.limits.disk_mb} MiB "
            f"(the workspace and its scratch folders reached {usage // MiB} MiB); the heal stopped"
        )
        with self._running_lock:
            running = list(self._running.values())
        for proc, slot in running:
            kill_everything(proc, slot)
        for channel in self._channels:
            channel.kill()
        if self.user is not None:
            self.user.kill_all()

    def _missing_executable(self, argv: list[str], env: dict[str, str] | None, cwd: str | None) -> str | None:
        if not argv:
            return "selfheal: empty command"
        program = argv[0]
        if "/" in program:
            path = Path(program) if Path(program).is_absolute() else self._resolve(cwd or ".") / program
            ok = path.is_file() and os.access(path, os.X_OK)
        else:
            host_path = os.environ.get("PATH", "")
            given = expand_path({**self._extra_env, **(env or {})}, host_path)
            search = given.get("PATH") or host_path
            ok = shutil.which(program, path=search) is not None
        return None if ok else f"selfheal: command not found: {program}"

    def open_channel(self, argv: list[str], *, env: dict[str, str] | None = None) -> LocalChannel:
        self._check_usable()
        slot = self._cgroups.new_slot() if self._cgroups else None
        proc = self._spawn(argv, env=env, cwd=None, cpu_seconds=None, slot=slot, stdin=subprocess.PIPE)
        channel = LocalChannel(proc, slot, self.limits.output_bytes, self._disk)
        self._channels.append(channel)
        return channel

    def _spawn(
        self,
        argv: list[str],
        *,
        env: dict[str, str] | None,
        cwd: str | None,
        cpu_seconds: float | None,
        slot: CgroupSlot | None,
        stdin: int | None,
    ) -> subprocess.Popen[bytes]:
        workdir = self._resolve(cwd or ".")
        extra = {**self._extra_env, **(env or {})}
        if self.user is not None:
            # An account-less uid: programs that ask who they are (getpass) find an answer here.
            extra = {"USER": "selfheal-sandbox", "LOGNAME": "selfheal-sandbox", **extra}
        full_env = build_environment(home=str(self._home), tmpdir=str(self._tmp), extra=extra)
        fds: list[int] = []
        if self._bwrap:
            prefix, fds = self._bwrap.prefix(self.root, workdir)
            if self._bwrap.privileged:  # setpriv execs the command and reports 126/127 itself
                full_argv = [*prefix, *argv]
            else:
                # bwrap reports a failed exec as exit 1, which pytest would call "tests failed";
                # a shell's exec reports it as 126/127 like any shell.
                full_argv = [*prefix, "/bin/sh", "-c", 'exec "$@"', "selfheal-exec", *argv]
        else:
            full_argv = argv
        cpu = self.limits.cpu_seconds or (math.ceil(cpu_seconds) + 10 if cpu_seconds else None)
        limits = self.limits
        procs_file = slot.procs_file if slot else None
        nproc = self._nproc_limit
        # Without namespaces, this process drops to the sandbox user itself; with them, setpriv
        # does it inside, after bubblewrap (which needs root) has made the mounts.
        drop = self.user if self.user is not None and not self._bwrap else None
        seccomp = self._seccomp
        landlock = self._landlock
        file_limit = min(limits.max_file_mb, limits.disk_mb) * MiB

        def child_setup() -> None:  # runs in the child between fork and exec
            if procs_file:
                with open(procs_file, "w") as handle:
                    handle.write(str(os.getpid()))
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * MiB,) * 2)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit,) * 2)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if cpu:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            if nproc:
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            if drop is not None:
                drop.drop_to(seccomp)
            if landlock is not None:
                landlock.enforce()

        def start() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                full_argv,
                cwd=workdir,
                env=full_env,
                stdin=stdin if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=child_setup,
                pass_fds=fds,
            )

        try:
            return self._spawner.submit(start).result()
        finally:
            for fd in fds:
                os.close(fd)
