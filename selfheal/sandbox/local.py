"""The local backend: subprocesses on this machine, contained as far as the machine allows.

Always: own session and process group (the whole group is killed on timeout and when the command
ends), rlimits on address space, file size and CPU, an allowlisted environment, HOME and TMPDIR
inside the workspace, capped output, and a watch on how much the commands write.

As root, never as root: the session gets a uid of its own that owns only the workspace copy
(`identity.SandboxUser`), every command runs as that uid with no capabilities, and the uid's
processes are all killed at the end. Where bubblewrap works, namespaces besides (no network, a
view of the host made of the system's folders and the interpreter, read-only, private /tmp);
elsewhere Landlock shows the same folders. A pids cgroup per command where one can be made.
`info` states exactly what was in force (`Isolation`).
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
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from selfheal.sandbox.base import ExecResult, Isolation, Limits, SandboxInfo
from selfheal.sandbox.bwrap import Bwrap, in_system_view, probe_bwrap, system_paths
from selfheal.sandbox.cgroup import CgroupSlot, PidsCgroups
from selfheal.sandbox.diskwatch import DiskWatch, combined, disk_usage
from selfheal.sandbox.env import build_environment, expand_path
from selfheal.sandbox.exceptions import LimitExceeded, SandboxUnavailable, WorkspaceTrap
from selfheal.sandbox.identity import SHARED_SCRATCH, Filter, SandboxUser, closed_folder, readable_by_others
from selfheal.sandbox.interpreter import CACHE_NAME, reachable_interpreter, referenced_folders
from selfheal.sandbox.landlock import Ruleset, build_ruleset
from selfheal.sandbox.output import CappedBuffer, LineQueue, drain_in_background
from selfheal.sandbox.processes import has_exited, wait_unreaped
from selfheal.sandbox.seccomp import no_user_namespaces_program

STATE_DIR = ".selfheal-sandbox"
MiB = 1024 * 1024
MAX_READ = 256 * MiB  # a file selfheal reads back (JUnit XML, coverage data) larger than this is refused
UNSAFE_HINT = (
    "install bubblewrap (apt-get install bubblewrap), use the docker sandbox, or accept the risk "
    "explicitly (--accept-unsafe-sandbox; the Action's accept-unsafe-sandbox input)"
)


def _count_user_processes(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += 1
    return count


class LocalSandbox:
    """`Sandbox` backend running commands as local subprocesses.

    `require_contained`: refuse to start (SandboxUnavailable) where the commands would run as
    selfheal's own user with no namespaces, i.e. could read its memory and environment — what
    GitHub needs before a token sits next to the repository's code. `accept_unsafe`: run anyway
    where containment is impossible (also as root, when the sandbox user cannot reach the test
    interpreter), and say so in `info`.
    """

    interpreter_inside = False

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        namespaces: bool = True,
        extra_env: dict[str, str] | None = None,
        require_contained: bool = False,
        accept_unsafe: bool = False,
    ) -> None:
        self.limits = limits or Limits()
        self.namespaces = namespaces
        self.extra_env = dict(extra_env or {})
        self.require_contained = require_contained
        self.accept_unsafe = accept_unsafe

    def start(
        self, workspace: Path, *, expose: tuple[Path, ...] = (), python: str | None = None
    ) -> LocalSession:
        """`expose`: what the test interpreter `python` needs; without it, the tests run on
        selfheal's own Python. That one is shown behind bubblewrap in any case (a repository's
        environment may import from it), but only what the tests need must be open to a
        sandbox uid."""
        own = (Path(sys.prefix), Path(sys.base_prefix))
        referenced = referenced_folders(python or sys.executable)
        return LocalSession(
            Path(workspace).resolve(),
            self.limits,
            namespaces=self.namespaces,
            extra_env=self.extra_env,
            expose=_resolved(expose or own),
            shown=_resolved((*expose, *own, *referenced)),
            python=python,
            require_contained=self.require_contained,
            accept_unsafe=self.accept_unsafe,
        )


def shown_to_tests(path: Path, python: str | None = None) -> bool:
    """Whether bubblewrap's view would show `path` to the tests: it lies in the system's folders,
    the allowlisted files of /etc, or the folders of selfheal's own Python (and what it imports
    from) that every session binds in. A service keeps its key, database and work folders
    elsewhere."""
    path = Path(path).resolve()
    own = _resolved((Path(sys.prefix), Path(sys.base_prefix), *referenced_folders(python or sys.executable)))
    return in_system_view(path) or any(path == f or f in path.parents for f in own)


def _resolved(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(Path(p).resolve() for p in paths))


class LocalSession:
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
            unreachable = self._unreachable(expose, notes) or _cannot_drop_to(self.user)
            if unreachable:
                if not accept_unsafe:
                    self._spawner.shutdown(wait=False)
                    raise SandboxUnavailable(
                        f"selfheal runs as root, so the local sandbox runs the tests as an unprivileged "
                        f"uid; without namespaces (bubblewrap: {bwrap_note}) {unreachable}. "
                        f"Make it readable by other users, {UNSAFE_HINT}"
                    )
                self.user = None  # accepted: the tests run as root
        self._landlock: Ruleset | None = None
        if self._bwrap is None and (self.user is not None or os.geteuid() != 0):
            # as root with the risk accepted the tests run as root: no view is promised there
            self._landlock, why = _allowlist(root, (*shown, *expose), mirror_roots)
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
            self._nproc_limit = _count_user_processes(os.getuid()) + limits.max_processes
        self.facts = self._facts(bwrap_note, notes)
        self.info = SandboxInfo.of("local", self.facts)
        # Where GitHub's token sits beside the heal, namespaces that were asked for and cannot be
        # made are a refusal, not a quiet step down: a repository can make them fail (its image,
        # its runner), and without them its tests reach the network and the host's /tmp.
        weaker = require_contained and namespaces and self._bwrap is None and not accept_unsafe
        if weaker or (require_contained and not self.facts.contained and not accept_unsafe):
            if self._cgroups:
                self._cgroups.close()
            if self._landlock is not None:
                self._landlock.close()
            self._spawner.shutdown(wait=False)
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

    # -- commands -------------------------------------------------------------------------
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
            _kill_everything(proc, slot)
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
            _kill_everything(proc, slot)
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

    # -- files ----------------------------------------------------------------------------
    def _resolve(self, relpath: str) -> Path:
        path = (self.root / relpath).resolve()
        if path != self.root and self.root not in path.parents:
            raise ValueError(f"path escapes the workspace: {relpath}")
        return path

    def _parts(self, relpath: str) -> list[str]:
        normal = posixpath.normpath(relpath)
        parts = [p for p in normal.split("/") if p not in ("", ".")]
        if not parts or parts[0] == ".." or posixpath.isabs(normal):
            raise ValueError(f"path escapes the workspace: {relpath}")
        return parts

    def _folder_of(self, relpath: str, *, create: bool, force: bool) -> tuple[int, str]:
        """An open descriptor of the folder that holds `relpath`, reached from the root without
        following any link, and the file's name in it.

        Sandboxed code can change the workspace between commands; a link or a file it planted in
        place of a folder must never redirect a host write (or read) outside the workspace."""
        parts = self._parts(relpath)
        directory = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for depth, part in enumerate(parts[:-1]):
                try:
                    inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                except FileNotFoundError:
                    if not create:
                        raise
                    self._make_folder(part, directory)
                    inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    where = "/".join(parts[: depth + 1])
                    if not force:
                        raise WorkspaceTrap(
                            f"{relpath}: {where} is {_describe(part, directory)} planted in the workspace "
                            "where a folder was; selfheal does not write through it"
                        ) from exc
                    os.unlink(part, dir_fd=directory)
                    self._make_folder(part, directory)
                    inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                os.close(directory)
                directory = inner
        except BaseException:
            os.close(directory)
            raise
        return directory, parts[-1]

    def _make_folder(self, name: str, directory: int) -> None:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o755, dir_fd=directory)
        if self.user is not None:
            os.chown(name, self.user.uid, self.user.gid, dir_fd=directory, follow_symlinks=False)

    def write_file(self, relpath: str, content: str | bytes, *, force: bool = False) -> None:
        """Write through a new file renamed into place: a hard link the tests made to the old
        file keeps the old content, and the write never opens what sits at the name."""
        self._check_usable()
        data = content.encode("utf-8") if isinstance(content, str) else content
        directory, name = self._folder_of(relpath, create=True, force=force)
        temporary = f".selfheal-write-{uuid.uuid4().hex}"
        try:
            try:
                existing = os.stat(name, dir_fd=directory, follow_symlinks=False)
            except FileNotFoundError:
                existing = None
            if existing is not None and not stat.S_ISREG(existing.st_mode):
                if not force:
                    raise WorkspaceTrap(
                        f"{relpath} is {_describe(name, directory)} planted in the workspace where a "
                        "file was; selfheal does not write through it"
                    )
                if stat.S_ISDIR(existing.st_mode):
                    shutil.rmtree(name, dir_fd=directory)
                else:
                    os.unlink(name, dir_fd=directory)
            executable = existing is not None and stat.S_ISREG(existing.st_mode) and existing.st_mode & 0o100
            mode = 0o755 if executable else 0o644
            handle = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=directory
            )
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                os.fchmod(stream.fileno(), mode)
                if self.user is not None:
                    os.fchown(stream.fileno(), self.user.uid, self.user.gid)
            try:
                os.rename(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
            except OSError as exc:  # a folder appeared at the name since the check
                raise WorkspaceTrap(f"{relpath} could not be replaced ({exc.strerror})") from exc
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=directory)
            raise
        finally:
            os.close(directory)

    def read_file(self, relpath: str) -> bytes | None:
        try:
            directory, name = self._folder_of(relpath, create=False, force=False)
        except (OSError, WorkspaceTrap):
            return None
        try:
            # O_NONBLOCK: a FIFO planted at the name must not hang selfheal.
            handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
        except OSError:
            return None
        finally:
            os.close(directory)
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_READ:
            os.close(handle)
            return None
        with os.fdopen(handle, "rb") as stream:
            data = stream.read(MAX_READ + 1)
        return data if len(data) <= MAX_READ else None

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

    def __enter__(self) -> LocalSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _allowlist(
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


def _cannot_drop_to(user: SandboxUser) -> str:
    """Why a child cannot become `user` here (no CAP_SETUID, a seccomp profile), or ""."""
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", "exit 0"], preexec_fn=user.drop_to, capture_output=True, timeout=20
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"this process cannot switch to that uid ({exc})"
    return "" if done.returncode == 0 else f"a process switched to that uid fails (exit {done.returncode})"


def _describe(name: str, directory: int) -> str:
    try:
        info = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except OSError:
        return "something"
    if stat.S_ISLNK(info.st_mode):
        try:
            return f"a symbolic link (to {os.readlink(name, dir_fd=directory)})"
        except OSError:
            return "a symbolic link"
    kinds = {
        stat.S_ISDIR: "a folder",
        stat.S_ISREG: "a file",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
    }
    return next((what for test, what in kinds.items() if test(info.st_mode)), "a device")


def _kill_everything(proc: subprocess.Popen[bytes], slot: CgroupSlot | None) -> None:
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
        _kill_everything(self._proc, self._slot)

    def close(self) -> str:
        if not self._closed:
            self._closed = True
            self._disk.end()
            with contextlib.suppress(OSError, ValueError):
                self._proc.stdin.close()
            _kill_everything(self._proc, self._slot)
            self._proc.wait()
            self._stderr_reader.join(timeout=5)
            if self._slot:
                self._slot.remove()
        return self._stderr.text()
