"""What a job queue holds and promises, whichever database keeps it.

    queued --claim--> running --finish--> done
                         |  \\--finish (retry, attempts left)--> queued (after a delay)
                         |   \\-finish (no retry / attempts spent)--> failed
                         \\--release (graceful stop) / recover (after a crash)--> queued

The server, the intake and the workers see a queue only through `Queue`: SQLite (queue.JobQueue,
one server per file) or PostgreSQL (pgqueue.PgJobQueue, shared by several servers).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ParamSpec, Protocol, TypeVar

from selfheal.bot.exceptions import QueueError

LOCK_TTL_S = 600.0  # a publish takes seconds; a holder gone this long is dead
LOCK_WAIT_S = 900.0

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
STATUSES = (QUEUED, RUNNING, DONE, FAILED)

P = ParamSpec("P")
R = TypeVar("R")


def database_errors(
    error: type[Exception], detail: Callable[[Exception], str]
) -> Callable[[str], Callable[[Callable[P, R]], Callable[P, R]]]:
    """One database's `@errors(what)`: its `error` raised in a method becomes a QueueError that
    says what could not be done, followed by `detail(exc)`."""

    def errors(what: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
        def wrap(fn: Callable[P, R]) -> Callable[P, R]:
            @functools.wraps(fn)
            def inner(*args: P.args, **kwargs: P.kwargs) -> R:
                try:
                    return fn(*args, **kwargs)
                except error as exc:
                    raise QueueError(f"job database: could not {what}: {detail(exc)}") from exc

            return inner

        return wrap

    return errors


@dataclass(frozen=True)
class Job:
    id: int
    delivery_id: str
    event: str
    payload: dict[str, Any]
    installation_id: int | None
    repo: str
    lane: str
    status: str
    attempts: int  # counting the current one while running
    claim: str | None
    created_at: float
    result: str | None = None  # what the job did, once done
    error: str | None = None  # the last failure or interruption, also of an earlier attempt


@dataclass(frozen=True)
class JobResult:
    ok: bool  # the job did what it is for (a refusal or "not healed" is ok: it was answered)
    summary: str  # one line: what happened, or why it failed
    retry: bool = False  # a failure worth another attempt (GitHub or git unreachable, ...)


class Queue(Protocol):
    """What the server, the intake and the workers use of a queue: SQLite (JobQueue, one server per
    file) or PostgreSQL (pgqueue.PgJobQueue, shared by several servers)."""

    shared: bool  # other servers may run jobs of this queue: only jobs whose heartbeat stopped are theirs

    def enqueue(
        self, *, delivery_id: str, event: str, payload: str, repo: str, lane: str,
        installation_id: int | None = None,
    ) -> tuple[int, bool]: ...  # fmt: skip

    def claim(self, worker: str) -> Job | None: ...

    def finish(self, job: Job, result: JobResult) -> str | None: ...

    def release(self, job: Job) -> bool: ...

    def recover(self) -> tuple[int, int]: ...

    def heartbeat(self, job: Job) -> bool: ...

    def recover_stale(self) -> tuple[int, int]: ...

    def lane_lock(self, key: str, holder: str) -> AbstractContextManager[None]: ...

    def counts(self) -> dict[str, int]: ...

    def close(self) -> None: ...
