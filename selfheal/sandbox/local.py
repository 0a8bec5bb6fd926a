"""The local backend: subprocesses on this machine, contained as far as the machine allows.

Always: own session and process group (the whole group is killed on timeout and when the command
ends), rlimits on address space, file size and CPU, an allowlisted environment, HOME and TMPDIR
inside the workspace, capped output. Where available: a pids cgroup per command (process count
and a complete kill list) and bubblewrap namespaces (no network, read-only outside the
workspace). `info.isolation` lists exactly what was in force.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import posixpath
import resource
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from selfheal.sandbox.base import ExecResult, Limits, SandboxInfo
from selfheal.sandbox.bwrap import Bwrap, probe_bwrap
from selfheal.sandbox.cgroup import CgroupSlot, PidsCgroups
from selfheal.sandbox.env import build_environment, expand_path
from selfheal.sandbox.output import CappedBuffer, LineQueue, drain_in_background

STATE_DIR = ".selfheal-sandbox"
MiB = 1024 * 1024


def _count_user_processes(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += 1
    return count


class LocalSandbox:
    """`Sandbox` backend running commands as local subprocesses."""

    interpreter_inside = False

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        namespaces: bool = True,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.namespaces = namespaces
        self.extra_env = dict(extra_env or {})

    def start(self, workspace: Path, *, expose: tuple[Path, ...] = ()) -> LocalSession:
        # selfheal's own Python is the default test interpreter: always readable.
        expose = (*expose, Path(sys.prefix), Path(sys.base_prefix))
        return LocalSession(
            Path(workspace).resolve(),
            self.limits,
            namespaces=self.namespaces,
            extra_env=self.extra_env,
            expose=tuple(Path(p).resolve() for p in expose),
        )


class LocalSession:
    def __init__(
        self,
        root: Path,
        limits: Limits,
        *,
        namespaces: bool,
        extra_env: dict[str, str],
        expose: tuple[Path, ...] = (),
    ) -> None:
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
        # bwrap's --die-with-parent fires when the *thread* that spawned it exits, so every
        # process is started from this one thread, which lives as long as the session.
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="selfheal-spawn")

        self._bwrap: Bwrap | None = None
        isolation = ["own process group"]
        if namespaces:
            self._bwrap, bwrap_note = probe_bwrap(root, expose)
            isolation.insert(0, bwrap_note if self._bwrap else f"no namespaces ({bwrap_note})")
        else:
            isolation.insert(0, "no namespaces (disabled)")

        self._cgroups = PidsCgroups.open(limits.max_processes)
        self._nproc_limit: int | None = None
        if self._cgroups is not None:
            isolation.append(f"pids cgroup ({limits.max_processes} processes)")
        elif os.getuid() != 0:
            # RLIMIT_NPROC counts every process of the user, so the bound sits above today's count.
            self._nproc_limit = _count_user_processes(os.getuid()) + limits.max_processes
            isolation.append(f"RLIMIT_NPROC (+{limits.max_processes} processes)")
        else:
            isolation.append("process count unbounded (root without a writable pids cgroup)")
        isolation.append(
            f"rlimits (address space {limits.memory_mb} MiB, file size {limits.max_file_mb} MiB, CPU)"
        )
        self.info = SandboxInfo(backend="local", network=self._bwrap is None, isolation="; ".join(isolation))

    # -- commands -------------------------------------------------------------------------
    def run(
        self,
        argv: list[str],
        *,
        timeout: float,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
    ) -> ExecResult:
        started = time.monotonic()
        missing = self._missing_executable(argv, env, cwd)
        if missing:
            return ExecResult(127, "", missing, time.monotonic() - started, argv=tuple(argv))
        slot = self._cgroups.new_slot() if self._cgroups else None
        try:
            proc = self._spawn(argv, env=env, cwd=cwd, cpu_seconds=timeout, slot=slot, stdin=None)
        except OSError as exc:
            if slot:
                slot.remove()
            return ExecResult(
                127,
                "",
                f"selfheal: cannot run {argv[0]!r}: {exc.strerror or exc}",
                time.monotonic() - started,
                argv=tuple(argv),
            )
        out, err = CappedBuffer(self.limits.output_bytes), CappedBuffer(self.limits.output_bytes)
        readers = [drain_in_background(proc.stdout, out), drain_in_background(proc.stderr, err)]
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            # Ends leftovers too: a test's background process must not outlive its run.
            _kill_everything(proc, slot)
            returncode = proc.wait()
            for reader in readers:
                reader.join(timeout=5)
            if slot:
                slot.remove()
        return ExecResult(
            returncode=-signal.SIGKILL if timed_out else returncode,
            stdout=out.text(),
            stderr=err.text(),
            duration_s=time.monotonic() - started,
            timed_out=timed_out,
            truncated=out.truncated or err.truncated,
            argv=tuple(argv),
        )

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
        slot = self._cgroups.new_slot() if self._cgroups else None
        proc = self._spawn(argv, env=env, cwd=None, cpu_seconds=None, slot=slot, stdin=subprocess.PIPE)
        channel = LocalChannel(proc, slot, self.limits.output_bytes)
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
        full_env = build_environment(
            home=str(self._home), tmpdir=str(self._tmp), extra={**self._extra_env, **(env or {})}
        )
        if self._bwrap:
            # bwrap reports a failed exec as exit 1, which pytest would call "tests failed";
            # a shell's exec reports it as 126/127 like any shell.
            full_argv = [
                *self._bwrap.prefix(self.root, workdir),
                "/bin/sh",
                "-c",
                'exec "$@"',
                "selfheal-exec",
                *argv,
            ]
        else:
            full_argv = argv
        cpu = self.limits.cpu_seconds or (math.ceil(cpu_seconds) + 10 if cpu_seconds else None)
        limits = self.limits
        procs_file = slot.procs_file if slot else None
        nproc = self._nproc_limit

        def child_setup() -> None:  # runs in the child between fork and exec
            if procs_file:
                with open(procs_file, "w") as handle:
                    handle.write(str(os.getpid()))
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * MiB,) * 2)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.max_file_mb * MiB,) * 2)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if cpu:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            if nproc:
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

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
            )

        return self._spawner.submit(start).result()

    # -- files ----------------------------------------------------------------------------
    def _resolve(self, relpath: str) -> Path:
        path = (self.root / relpath).resolve()
        if path != self.root and self.root not in path.parents:
            raise ValueError(f"path escapes the workspace: {relpath}")
        return path

    def _open_beneath(self, relpath: str, flags: int) -> int:
        """Open a file under the root without following any symlink on the way.

        Sandboxed code can write to the workspace while the host writes patched files into it;
        a symlink it planted must not redirect a host write to a file outside the workspace.
        """
        normal = posixpath.normpath(relpath)
        parts = [p for p in normal.split("/") if p not in ("", ".")]
        if not parts or parts[0] == ".." or posixpath.isabs(normal):
            raise ValueError(f"path escapes the workspace: {relpath}")
        directory = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for part in parts[:-1]:
                if flags & os.O_CREAT:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, dir_fd=directory)
                try:
                    inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                except OSError as exc:
                    raise ValueError(
                        f"path escapes the workspace (not a plain folder on the way): {relpath}"
                    ) from exc
                os.close(directory)
                directory = inner
            try:
                return os.open(parts[-1], flags | os.O_NOFOLLOW, 0o644, dir_fd=directory)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise ValueError(f"path escapes the workspace through a symlink: {relpath}") from exc
                raise
        finally:
            os.close(directory)

    def write_file(self, relpath: str, content: str | bytes) -> None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        handle = self._open_beneath(relpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)

    def read_file(self, relpath: str) -> bytes | None:
        try:
            handle = self._open_beneath(relpath, os.O_RDONLY)
        except (FileNotFoundError, IsADirectoryError):
            return None
        except ValueError:
            raise
        except OSError:
            return None
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            os.close(handle)
            return None
        with os.fdopen(handle, "rb") as stream:
            return stream.read()

    def close(self) -> None:
        for channel in self._channels:
            channel.close()
        self._channels.clear()
        if self._cgroups:
            self._cgroups.close()
        self._spawner.shutdown(wait=False)

    def __enter__(self) -> LocalSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kill_everything(proc: subprocess.Popen[bytes], slot: CgroupSlot | None) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if slot:
        slot.kill_all()


class LocalChannel:
    def __init__(self, proc: subprocess.Popen[bytes], slot: CgroupSlot | None, limit: int) -> None:
        self._proc = proc
        self._slot = slot
        self._lines = LineQueue()
        self._stderr = CappedBuffer(limit)
        self._stderr_reader = drain_in_background(proc.stderr, self._stderr)
        self._stdout_reader = threading.Thread(target=self._read_lines, daemon=True)
        self._stdout_reader.start()
        self._closed = False

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
        return self._proc.poll() is None

    def close(self) -> str:
        if not self._closed:
            self._closed = True
            with contextlib.suppress(OSError, ValueError):
                self._proc.stdin.close()
            _kill_everything(self._proc, self._slot)
            self._proc.wait()
            self._stderr_reader.join(timeout=5)
            if self._slot:
                self._slot.remove()
        return self._stderr.text()
