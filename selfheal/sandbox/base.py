"""The seam between selfheal and the place where untrusted code runs.

A `Sandbox` starts one `Session` per heal on a workspace directory. Every command the heal runs
(the repo's tests, generated code, the screening worker) goes through the session, so a backend
decides isolation once and nothing else in the project needs to know which backend is in use.

A failed or timed-out command is a value (`ExecResult`), never an exception: callers read
`returncode` and `timed_out` the way they would read a shell's `$?`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

DEFAULT_OUTPUT_LIMIT = 2 * 1024 * 1024
MiB = 1024 * 1024
# selfheal's own folder in the workspace (HOME, TMPDIR, test records): every backend makes it
STATE_DIR = ".selfheal-sandbox"


@dataclass(frozen=True)
class Limits:
    """Resource bounds applied to every command of a session."""

    memory_mb: int = 2048
    max_processes: int = 256
    max_file_mb: int = 512
    cpu_seconds: int | None = None  # None: derived from each command's timeout
    output_bytes: int = DEFAULT_OUTPUT_LIMIT
    cpus: float = float(min(2, os.cpu_count() or 1))  # the docker backend's CPU quota
    disk_mb: int = 1024  # how much the commands may add to the workspace (and a private /tmp)


@dataclass(frozen=True)
class Isolation:
    """The facts of a session's containment, each one checkable from inside the sandbox.

    `uid` is the user the commands run as where they run; `separate_user` says whether that is
    another user than selfheal's own process (so the commands cannot read its memory, its
    environment or its root-only files). `contained` is what GitHub requires before it lets a
    repository's code run next to a token: another user, or namespaces that hide selfheal's
    processes and files, or a container.
    """

    uid: int
    separate_user: bool
    capabilities: tuple[str, ...]  # effective capabilities of the commands; () = none
    namespaces: tuple[str, ...]  # new namespaces the commands live in (mount, pid, net, ...)
    network: bool
    filesystem: str  # what the commands may write
    # no write outside the workspace and scratch reaches the host (scratch: a private /tmp and
    # /dev/shm; under Landlock the host's /dev/shm, as `filesystem` says)
    read_only_elsewhere: bool
    disk_limit_mb: int | None
    processes: str  # what bounds the number of processes
    nested_user_namespaces: bool  # whether the commands may create user namespaces
    notes: tuple[str, ...] = ()  # further limits in force (rlimits, memory, CPU)

    @property
    def contained(self) -> bool:
        if self.capabilities:
            return False
        return self.separate_user or {"mount", "pid", "user"} <= set(self.namespaces)

    def describe(self) -> str:
        who = f"uid {self.uid}" + (", not selfheal's user" if self.separate_user else ", selfheal's own user")
        parts = [
            who,
            "capabilities: " + (", ".join(self.capabilities) if self.capabilities else "none"),
            "namespaces: " + (", ".join(self.namespaces) if self.namespaces else "none"),
            "network: " + ("reachable" if self.network else "none"),
            f"writes: {self.filesystem}",
            f"workspace limit: +{self.disk_limit_mb} MiB" if self.disk_limit_mb else "workspace limit: none",
            f"processes: {self.processes}",
            "new user namespaces: " + ("allowed" if self.nested_user_namespaces else "blocked"),
            *self.notes,
        ]
        return "; ".join(parts)

    def as_dict(self) -> dict[str, object]:
        return {
            "uid": self.uid,
            "separate_user": self.separate_user,
            "capabilities": list(self.capabilities),
            "namespaces": list(self.namespaces),
            "network": self.network,
            "filesystem": self.filesystem,
            "read_only_elsewhere": self.read_only_elsewhere,
            "disk_limit_mb": self.disk_limit_mb,
            "processes": self.processes,
            "nested_user_namespaces": self.nested_user_namespaces,
            "contained": self.contained,
        }


@dataclass(frozen=True)
class SandboxInfo:
    """What was actually in force, as the heal report states it."""

    backend: str
    network: bool
    isolation: str
    facts: Isolation | None = None

    @classmethod
    def of(cls, backend: str, facts: Isolation) -> SandboxInfo:
        return cls(backend, facts.network, facts.describe(), facts)

    def plain(self) -> str:
        """The isolation in a few words, for a console line: "local, namespaces, no network".
        `isolation` says it whole."""
        parts = [self.backend]
        facts = self.facts
        if facts is not None and self.backend != "docker":  # a container is its own namespaces
            if facts.namespaces:
                parts.append("namespaces")
            elif facts.separate_user:
                parts.append("another user")
        if facts is not None and not facts.contained:
            parts.append("not contained")
        parts.append("network reachable" if self.network else "no network")
        return ", ".join(parts)

    def as_dict(self) -> dict[str, object]:
        info: dict[str, object] = {
            "backend": self.backend,
            "network": self.network,
            "isolation": self.isolation,
        }
        if self.facts is not None:
            info["facts"] = self.facts.as_dict()
        return info


@dataclass(frozen=True)
class Fallback:
    """Why `auto` took the local sandbox. `reason` is one plain line for what is published (a
    pull request, a job summary, a comment); `detail` is the engine's own words, which may name
    hosts and resolver addresses, for the report only."""

    reason: str  # e.g. "sandbox: local — the Docker image python:3.12-slim could not be pulled"
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "detail": self.detail}


@dataclass(frozen=True)
class ExecResult:
    returncode: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    truncated: bool = False
    argv: tuple[str, ...] = field(default=(), compare=False)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


@runtime_checkable
class Channel(Protocol):
    """A long-lived process inside the session, spoken to in lines (the screening worker)."""

    def send(self, line: str) -> None: ...

    def receive(self, timeout: float) -> str | None:
        """The next line of output without its newline; None on timeout or end of stream."""
        ...

    def close(self) -> str:
        """Stop the process and everything it started; returns the tail of its stderr."""
        ...


@runtime_checkable
class Session(Protocol):
    root: Path  # the workspace as commands inside the sandbox see it
    info: SandboxInfo
    python: str | None  # the interpreter the sandbox provides for the tests; None: the host's

    # `env` adds to the sandbox's own allowlisted environment; a PATH value may contain
    # `${PATH}`, which stands for the sandbox's default PATH.
    def run(
        self,
        argv: list[str],
        *,
        timeout: float,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
    ) -> ExecResult: ...

    def open_channel(self, argv: list[str], *, env: dict[str, str] | None = None) -> Channel: ...

    # Files travel between selfheal and the workspace without following anything the commands
    # planted. A write that meets a link, a file where a folder should be or a folder where the
    # file should be raises WorkspaceTrap, unless `force`: then those entries are removed (never
    # followed) and the file is put in place, which is how selfheal restores its own files and
    # the base versions of the repository's. A read of anything but a regular file is None.
    def write_file(self, relpath: str, content: str | bytes, *, force: bool = False) -> None: ...

    def read_file(self, relpath: str) -> bytes | None: ...

    def close(self) -> None: ...


@runtime_checkable
class Sandbox(Protocol):
    interpreter_inside: bool  # True: tests run on the sandbox's own Python, not the host's

    def start(self, workspace: Path, *, expose: tuple[Path, ...] = (), python: str | None = None) -> Session:
        """One session on `workspace` (read-write). `expose`: host folders that commands need
        to read, such as the test interpreter's environment; `python`: that interpreter. A
        backend that brings its own interpreter may ignore both; one that must run the tests on
        another path of the host's (`Session.python`) says so."""
        ...
