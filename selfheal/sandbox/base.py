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


@dataclass(frozen=True)
class Limits:
    """Resource bounds applied to every command of a session."""

    memory_mb: int = 2048
    max_processes: int = 256
    max_file_mb: int = 512
    cpu_seconds: int | None = None  # None: derived from each command's timeout
    output_bytes: int = DEFAULT_OUTPUT_LIMIT
    cpus: float = float(min(2, os.cpu_count() or 1))  # the docker backend's CPU quota


@dataclass(frozen=True)
class SandboxInfo:
    """What was actually in force, as the heal report states it."""

    backend: str
    network: bool
    isolation: str

    def as_dict(self) -> dict[str, object]:
        return {"backend": self.backend, "network": self.network, "isolation": self.isolation}


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

    def write_file(self, relpath: str, content: str | bytes) -> None: ...

    def read_file(self, relpath: str) -> bytes | None: ...

    def close(self) -> None: ...


@runtime_checkable
class Sandbox(Protocol):
    interpreter_inside: bool  # True: tests run on the sandbox's own Python, not the host's

    def start(self, workspace: Path, *, expose: tuple[Path, ...] = ()) -> Session:
        """One session on `workspace` (read-write). `expose`: host folders that commands need
        to read, such as the test interpreter's environment; a backend that brings its own
        interpreter may ignore them."""
        ...
