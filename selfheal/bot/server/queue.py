"""A durable job queue in one SQLite file (WAL mode): one row per accepted webhook delivery, in the
states of jobs.py, with the statements of jobsql.py.

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

import hashlib
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from selfheal.bot.exceptions import QueueError
from selfheal.bot.server.jobs import LOCK_TTL_S, LOCK_WAIT_S, STATUSES, Job, JobResult, R, database_errors
from selfheal.bot.server.jobsql import SQLITE, Statements, held, job_from_row, schema

SCHEMA_VERSION = 1
SCHEMA = schema(SQLITE)
SQL = Statements(SQLITE)

_sqlite_errors = database_errors(sqlite3.Error, str)


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
                SQL.enqueue, (delivery_id, event, payload, digest, installation_id, repo, lane, now, now)
            )
            if cursor.rowcount == 1:
                return int(cursor.lastrowid or 0), True
            row = conn.execute(SQL.seen, (delivery_id, digest)).fetchone()
            return int(row["id"]), False

        return self._write(insert)

    @_sqlite_errors("claim a job")
    def claim(self, worker: str) -> Job | None:
        """The oldest due job whose lane is free, now running and held by the caller; or None."""
        now = self.clock()
        token = secrets.token_hex(8)

        def take(conn: sqlite3.Connection) -> Job | None:
            row = conn.execute(SQL.due, (now,)).fetchone()
            if row is None:
                return None
            cursor = conn.execute(SQL.take, (token, worker, now, now, row["id"]))
            if cursor.rowcount != 1:
                return None
            return job_from_row(conn.execute(SQL.get, (row["id"],)).fetchone())

        return self._write(take)

    @_sqlite_errors("record a job's result")
    def finish(self, job: Job, result: JobResult) -> str | None:
        """Record the result; the job's new status, or None when the claim was no longer held."""
        status, sql, params = SQL.finishing(
            job, result, self.clock(), max_attempts=self.max_attempts, retry_delay=self.retry_delay
        )

        def record(conn: sqlite3.Connection) -> int:
            return conn.execute(sql, params).rowcount

        return status if self._write(record) == 1 else None

    @_sqlite_errors("re-queue a job")
    def release(self, job: Job) -> bool:
        """Back to queued without counting the attempt (the server is stopping, the job is not at fault)."""
        now = self.clock()

        def back(conn: sqlite3.Connection) -> int:
            return conn.execute(SQL.release, (now, job.id, job.claim)).rowcount

        return self._write(back) == 1

    @_sqlite_errors("recover interrupted jobs")
    def recover(self) -> tuple[int, int]:
        """Jobs left running by a server that died: (re-queued, failed for good). Call at start only."""
        now = self.clock()

        def sweep(conn: sqlite3.Connection) -> tuple[int, int]:
            failed = conn.execute(SQL.fail_gone, (now, now, self.max_attempts)).rowcount
            requeued = conn.execute(SQL.requeue_gone, (now,)).rowcount
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
        self._write(lambda conn: conn.execute(SQL.unlock, (key, holder)))

    def lane_lock(
        self, key: str, holder: str, *, wait: float = LOCK_WAIT_S, poll: float = 0.2
    ) -> AbstractContextManager[None]:
        """Hold `key` (e.g. a repository's failure signature) for the block; wait for another holder
        first. Raises QueueError when it stays taken for `wait` seconds."""
        return held(
            lambda: self.try_lock(key, holder), lambda: self.unlock(key, holder), key, wait=wait, poll=poll
        )

    # -- reading ------------------------------------------------------------------------------------
    @_sqlite_errors("count the jobs")
    def counts(self) -> dict[str, int]:
        rows = self._conn().execute(SQL.counts).fetchall()
        found = {row["status"]: int(row["n"]) for row in rows}
        return {status: found.get(status, 0) for status in STATUSES}

    @_sqlite_errors("read a job")
    def get(self, job_id: int) -> Job | None:
        row = self._conn().execute(SQL.get, (job_id,)).fetchone()
        return job_from_row(row) if row else None

    @_sqlite_errors("read the next due time")
    def next_due(self) -> float | None:
        row = self._conn().execute(SQL.next_due).fetchone()
        return None if row["t"] is None else float(row["t"])
