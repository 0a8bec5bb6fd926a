"""A durable job queue in one SQLite file (WAL mode): one row per accepted webhook delivery.

    queued --claim--> running --finish--> done
                         |  \\--finish (retry, attempts left)--> queued (after a delay)
                         |   \\-finish (no retry / attempts spent)--> failed
                         \\--release (graceful stop) / recover (after a crash)--> queued

* The delivery id is unique: a redelivery of the same id is recognised and queues nothing. So is the
  body's SHA-256: X-GitHub-Delivery is not covered by the signature, and a captured delivery replayed
  under a new id must not run a second time.
* A claim is one `BEGIN IMMEDIATE` transaction (the database's write lock): select the oldest due
  job whose lane has nothing running, then `UPDATE … WHERE status='queued'` and check the row
  count. No two workers, threads or processes, ever hold the same job.
* A lane is the concurrency group (repo + issue, or repo + branch): one job per lane runs at a time,
  like the `concurrency:` group of the workflow template.
* A second lane, by failure signature, is only known once a heal has found what fails: `lane_lock`
  holds it (a row in `locks`, with an expiry so a dead holder cannot keep it) while a job publishes,
  so two jobs about one failure (two issues, an issue and a red run) push and open one pull request
  one after the other, in this process or another one sharing the database.
* Each claim gets a random claim token; finishing or releasing a job is conditional on still holding
  it, so a job re-queued under a worker's feet is never marked done by that worker.
* `recover()` runs at start: jobs left `running` by a crashed server are queued again (the crashed
  attempt counts, so a job that kills its server every time ends as failed, not in a loop). One
  server process per database file; the server holds a lock file to make sure.

One connection per thread (sqlite3 connections are not shared between threads). Errors of SQLite
are raised as QueueError. The payload stored is the webhook's JSON as GitHub signed it; no token
or key is ever written here, and error texts are redacted by the caller.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

from selfheal.bot.exceptions import QueueError

LOCK_TTL_S = 600.0  # a publish takes seconds; a holder gone this long is dead
LOCK_WAIT_S = 900.0

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
STATUSES = (QUEUED, RUNNING, DONE, FAILED)
SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id     TEXT    NOT NULL UNIQUE,
    event           TEXT    NOT NULL,
    payload         TEXT    NOT NULL,
    body_sha256     TEXT    NOT NULL UNIQUE,
    installation_id INTEGER,
    repo            TEXT    NOT NULL,
    lane            TEXT    NOT NULL,
    status          TEXT    NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    claim           TEXT,
    worker          TEXT,
    not_before      REAL    NOT NULL DEFAULT 0,
    created_at      REAL    NOT NULL,
    updated_at      REAL    NOT NULL,
    started_at      REAL,
    finished_at     REAL,
    result          TEXT,
    error           TEXT
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs (status, not_before, id);
CREATE INDEX IF NOT EXISTS jobs_lane ON jobs (lane, status);
CREATE TABLE IF NOT EXISTS locks (
    key     TEXT PRIMARY KEY,
    holder  TEXT NOT NULL,
    expires REAL NOT NULL
);
"""

P = ParamSpec("P")
R = TypeVar("R")


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


def _sqlite_errors(what: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def inner(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return fn(*args, **kwargs)
            except sqlite3.Error as exc:
                raise QueueError(f"job database: could not {what}: {exc}") from exc

        return inner

    return wrap


class JobQueue:
    shared = False  # one server per file (the server holds a lock file): all its running jobs are its own

    def __init__(
        self,
        path: Path,
        *,
        max_attempts: int = 3,
        retry_delay: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.path = Path(path)
        self.max_attempts = max_attempts
        self.retry_delay = retry_delay
        self.clock = clock
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        self._open()

    # -- connections ------------------------------------------------------------------------------
    @_sqlite_errors("open the database")
    def _open(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                fd = os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600)  # payloads may be private
                os.close(fd)
        except OSError as exc:
            raise QueueError(f"job database {self.path}: {exc.strerror or exc}") from exc
        conn = self._conn()
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise QueueError(f"job database {self.path}: WAL mode refused ({mode}); is it on a network disk?")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise QueueError(
                f"job database {self.path} has schema {version}, newer than this selfheal ({SCHEMA_VERSION})"
            )
        conn.executescript(SCHEMA)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=True)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA synchronous=FULL")  # an answered delivery survives a power cut too
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
            with self._all_lock:
                self._all.append(conn)
        return conn

    def _write(self, fn: Callable[[sqlite3.Connection], R]) -> R:
        """Run `fn` in one write transaction (taken up front, so reads inside it are consistent)."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            out = fn(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return out

    def close(self) -> None:
        with self._all_lock:
            conns, self._all = self._all, []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()

    # -- the queue ----------------------------------------------------------------------------------
    @_sqlite_errors("queue a job")
    def enqueue(
        self,
        *,
        delivery_id: str,
        event: str,
        payload: str,
        repo: str,
        lane: str,
        installation_id: int | None = None,
    ) -> tuple[int, bool]:
        """(job id, True) for a new job; (the existing job's id, False) for a delivery id or a body
        seen before."""
        now = self.clock()
        digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()

        def insert(conn: sqlite3.Connection) -> tuple[int, bool]:
            cursor = conn.execute(
                "INSERT INTO jobs (delivery_id, event, payload, body_sha256, installation_id, repo, lane, "
                "status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?) "
                "ON CONFLICT DO NOTHING",
                (delivery_id, event, payload, digest, installation_id, repo, lane, now, now),
            )
            if cursor.rowcount == 1:
                return int(cursor.lastrowid or 0), True
            row = conn.execute(
                "SELECT id FROM jobs WHERE delivery_id = ? OR body_sha256 = ? ORDER BY id LIMIT 1",
                (delivery_id, digest),
            ).fetchone()
            return int(row["id"]), False

        return self._write(insert)

    @_sqlite_errors("claim a job")
    def claim(self, worker: str) -> Job | None:
        """The oldest due job whose lane is free, now running and held by the caller; or None."""
        now = self.clock()
        token = secrets.token_hex(8)

        def take(conn: sqlite3.Connection) -> Job | None:
            row = conn.execute(
                "SELECT id FROM jobs WHERE status = 'queued' AND not_before <= ? "
                "AND lane NOT IN (SELECT lane FROM jobs WHERE status = 'running') ORDER BY id LIMIT 1",
                (now,),
            ).fetchone()
            if row is None:
                return None
            cursor = conn.execute(
                "UPDATE jobs SET status = 'running', attempts = attempts + 1, claim = ?, worker = ?, "
                "started_at = ?, updated_at = ? WHERE id = ? AND status = 'queued'",
                (token, worker, now, now, row["id"]),
            )
            if cursor.rowcount != 1:
                return None
            return _job(conn.execute("SELECT * FROM jobs WHERE id = ?", (row["id"],)).fetchone())

        return self._write(take)

    @_sqlite_errors("record a job's result")
    def finish(self, job: Job, result: JobResult) -> str | None:
        """Record the result; the job's new status, or None when the claim was no longer held."""
        now = self.clock()
        if result.ok:
            status, sets, values = DONE, "result = ?, finished_at = ?", [result.summary, now]
        elif result.retry and job.attempts < self.max_attempts:
            delay = self.retry_delay * 2 ** max(0, job.attempts - 1)
            status, sets, values = QUEUED, "error = ?, not_before = ?", [result.summary, now + delay]
        else:
            status, sets, values = FAILED, "error = ?, finished_at = ?", [result.summary, now]

        def record(conn: sqlite3.Connection) -> int:
            return conn.execute(
                f"UPDATE jobs SET status = ?, {sets}, claim = NULL, updated_at = ? "
                "WHERE id = ? AND status = 'running' AND claim = ?",
                (status, *values, now, job.id, job.claim),
            ).rowcount

        return status if self._write(record) == 1 else None

    @_sqlite_errors("re-queue a job")
    def release(self, job: Job) -> bool:
        """Back to queued without counting the attempt (the server is stopping, the job is not at fault)."""
        now = self.clock()

        def back(conn: sqlite3.Connection) -> int:
            return conn.execute(
                "UPDATE jobs SET status = 'queued', attempts = MAX(attempts - 1, 0), claim = NULL, "
                "error = 'interrupted: the server stopped while it ran', updated_at = ? "
                "WHERE id = ? AND status = 'running' AND claim = ?",
                (now, job.id, job.claim),
            ).rowcount

        return self._write(back) == 1

    @_sqlite_errors("recover interrupted jobs")
    def recover(self) -> tuple[int, int]:
        """Jobs left running by a server that died: (re-queued, failed for good). Call at start only."""
        now = self.clock()

        def sweep(conn: sqlite3.Connection) -> tuple[int, int]:
            failed = conn.execute(
                "UPDATE jobs SET status = 'failed', claim = NULL, finished_at = ?, updated_at = ?, "
                "error = 'the server died while running it, ' || attempts || ' times' "
                "WHERE status = 'running' AND attempts >= ?",
                (now, now, self.max_attempts),
            ).rowcount
            requeued = conn.execute(
                "UPDATE jobs SET status = 'queued', claim = NULL, updated_at = ?, "
                "error = 'interrupted: the server died while it ran' WHERE status = 'running'",
                (now,),
            ).rowcount
            conn.execute("DELETE FROM locks")  # held by the jobs of the server that died
            return requeued, failed

        return self._write(sweep)

    def heartbeat(self, job: Job) -> bool:
        return True  # one server per file: nobody else judges its jobs by their heartbeat

    def recover_stale(self) -> tuple[int, int]:
        return 0, 0  # recover() at start is enough for a queue no other server shares

    # -- locks by failure signature ------------------------------------------------------------------
    @_sqlite_errors("take a lock")
    def try_lock(self, key: str, holder: str, ttl: float = LOCK_TTL_S) -> bool:
        now = self.clock()

        def take(conn: sqlite3.Connection) -> bool:
            conn.execute("DELETE FROM locks WHERE key = ? AND expires < ?", (key, now))
            conn.execute(
                "INSERT INTO locks (key, holder, expires) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE "
                "SET expires = excluded.expires WHERE locks.holder = excluded.holder",
                (key, holder, now + ttl),
            )
            row = conn.execute("SELECT holder FROM locks WHERE key = ?", (key,)).fetchone()
            return row is not None and row["holder"] == holder

        return self._write(take)

    @_sqlite_errors("free a lock")
    def unlock(self, key: str, holder: str) -> None:
        self._write(
            lambda conn: conn.execute("DELETE FROM locks WHERE key = ? AND holder = ?", (key, holder))
        )

    @contextmanager
    def lane_lock(
        self, key: str, holder: str, *, wait: float = LOCK_WAIT_S, poll: float = 0.2
    ) -> Iterator[None]:
        """Hold `key` (e.g. a repository's failure signature) for the block; wait for another holder
        first. Raises QueueError when it stays taken for `wait` seconds."""
        deadline = time.monotonic() + wait
        while not self.try_lock(key, holder):
            if time.monotonic() > deadline:
                raise QueueError(f"the lane {key} stayed busy for {wait:.0f}s")
            time.sleep(poll)
        try:
            yield
        finally:
            self.unlock(key, holder)

    # -- reading ------------------------------------------------------------------------------------
    @_sqlite_errors("count the jobs")
    def counts(self) -> dict[str, int]:
        rows = self._conn().execute("SELECT status, COUNT(*) AS n FROM jobs GROUP BY status").fetchall()
        found = {row["status"]: int(row["n"]) for row in rows}
        return {status: found.get(status, 0) for status in STATUSES}

    @_sqlite_errors("read a job")
    def get(self, job_id: int) -> Job | None:
        row = self._conn().execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return _job(row) if row else None

    @_sqlite_errors("read the next due time")
    def next_due(self) -> float | None:
        row = self._conn().execute("SELECT MIN(not_before) AS t FROM jobs WHERE status = 'queued'").fetchone()
        return None if row["t"] is None else float(row["t"])


def _job(row: sqlite3.Row) -> Job:
    return Job(
        id=int(row["id"]),
        delivery_id=row["delivery_id"],
        event=row["event"],
        payload=json.loads(row["payload"]),
        installation_id=row["installation_id"],
        repo=row["repo"],
        lane=row["lane"],
        status=row["status"],
        attempts=int(row["attempts"]),
        claim=row["claim"],
        created_at=float(row["created_at"]),
        result=row["result"],
        error=row["error"],
    )
