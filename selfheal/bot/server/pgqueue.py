"""The job queue in PostgreSQL (`--db postgresql://…`), for several servers sharing one queue.

The same states, rules and, where the databases agree, statements as the SQLite queue (queue.py,
jobsql.py), with what sharing needs:

* A claim takes the oldest due job with `SELECT … FOR UPDATE SKIP LOCKED` (two servers never wait
  for, nor take, the same row), then the lane: a transaction-scoped advisory lock on the lane's hash
  while it checks that nothing runs in the lane and marks the job running, so two servers never run
  two jobs of one lane either.
* A running job's server writes a heartbeat every few seconds. Any server re-queues the jobs whose
  heartbeat stopped (`recover_stale`): a server killed mid-heal loses its jobs to the others, which
  run them once. A re-queued job's claim token changes, so the dead server's worker, were it only
  slow, could not mark it done.
* `lane_lock` by failure signature is a row in `locks` with an expiry, as in SQLite.

Errors of PostgreSQL are raised as QueueError. One connection per thread.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row

from selfheal.bot.exceptions import QueueError
from selfheal.bot.server.jobs import LOCK_TTL_S, LOCK_WAIT_S, STATUSES, Job, JobResult, database_errors
from selfheal.bot.server.jobsql import POSTGRES, Statements, held, job_from_row, schema

SCHEMA = schema(POSTGRES)
SQL = Statements(POSTGRES)
STALE_AFTER_S = 20.0  # no heartbeat for this long: the server running the job is gone


# only the error's type: a PostgreSQL message may carry the connection string and its password
_pg_errors = database_errors(psycopg.Error, lambda exc: type(exc).__name__)


class PgJobQueue:
    shared = True  # other servers may use the same queue: recover only what stopped beating

    def __init__(
        self,
        url: str,
        *,
        max_attempts: int = 3,
        retry_delay: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.url = url
        self.max_attempts = max_attempts
        self.retry_delay = retry_delay
        self.clock = clock
        self._local = threading.local()
        self._all: list[psycopg.Connection[dict[str, Any]]] = []
        self._all_lock = threading.Lock()
        self._open()

    def __repr__(self) -> str:
        return "PgJobQueue(postgresql://…)"  # the URL may hold a password

    @_pg_errors("open the database")
    def _open(self) -> None:
        with self._tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(7157)")  # two servers creating the schema at once
            cur.execute(SCHEMA)

    def _conn(self) -> psycopg.Connection[dict[str, Any]]:
        conn = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            conn = psycopg.connect(self.url, row_factory=dict_row, connect_timeout=10)
            self._local.conn = conn
            with self._all_lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Cursor[dict[str, Any]]]:
        conn = self._conn()
        with conn.transaction(), conn.cursor() as cur:
            yield cur

    def close(self) -> None:
        with self._all_lock:
            conns, self._all = self._all, []
        for conn in conns:
            try:
                conn.close()
            except psycopg.Error:
                pass
        self._local = threading.local()

    # -- the queue ----------------------------------------------------------------------------------
    @_pg_errors("queue a job")
    def enqueue(
        self, *, delivery_id: str, event: str, payload: str, repo: str, lane: str,
        installation_id: int | None = None,
    ) -> tuple[int, bool]:  # fmt: skip
        now = self.clock()
        digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
        with self._tx() as cur:
            cur.execute(
                SQL.enqueue + " RETURNING id",
                (delivery_id, event, payload, digest, installation_id, repo, lane, now, now),
            )
            row = cur.fetchone()
            if row is not None:
                return int(row["id"]), True
            cur.execute(SQL.seen, (delivery_id, digest))
            found = cur.fetchone()
            if found is None:  # the conflicting row's transaction rolled back: try once more
                raise QueueError("job database: a concurrent delivery of the same body; redeliver")
            return int(found["id"]), False

    @_pg_errors("claim a job")
    def claim(self, worker: str) -> Job | None:
        now = self.clock()
        token = secrets.token_hex(8)
        with self._tx() as cur:
            cur.execute(SQL.due + " FOR UPDATE SKIP LOCKED", (now,))
            row = cur.fetchone()
            if row is None:
                return None
            cur.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s)) AS got", (row["lane"],))
            got = cur.fetchone()
            if not (got and got["got"]):
                return None  # another server is claiming in this lane right now
            cur.execute("SELECT 1 FROM jobs WHERE lane = %s AND status = 'running' LIMIT 1", (row["lane"],))
            if cur.fetchone() is not None:
                return None
            cur.execute(SQL.take + " RETURNING *", (token, worker, now, now, now, row["id"]))
            taken = cur.fetchone()
            return job_from_row(taken) if taken else None

    @_pg_errors("record a job's result")
    def finish(self, job: Job, result: JobResult) -> str | None:
        status, sql, params = SQL.finishing(
            job, result, self.clock(), max_attempts=self.max_attempts, retry_delay=self.retry_delay
        )
        with self._tx() as cur:
            cur.execute(sql, params)
            return status if cur.rowcount == 1 else None

    @_pg_errors("re-queue a job")
    def release(self, job: Job) -> bool:
        now = self.clock()
        with self._tx() as cur:
            cur.execute(SQL.release, (now, job.id, job.claim))
            return cur.rowcount == 1

    @_pg_errors("beat a job's heart")
    def heartbeat(self, job: Job) -> bool:
        with self._tx() as cur:
            cur.execute(
                "UPDATE jobs SET heartbeat = %s WHERE id = %s AND status = 'running' AND claim = %s",
                (self.clock(), job.id, job.claim),
            )
            return cur.rowcount == 1

    def recover(self) -> tuple[int, int]:
        """At start: only jobs whose server stopped beating (others may be running them)."""
        return self.recover_stale()

    @_pg_errors("recover interrupted jobs")
    def recover_stale(self, stale_after: float = STALE_AFTER_S) -> tuple[int, int]:
        now = self.clock()
        cutoff = now - stale_after
        with self._tx() as cur:
            cur.execute(SQL.fail_gone, (now, now, cutoff, self.max_attempts))
            failed = cur.rowcount
            cur.execute(SQL.requeue_gone, (now, cutoff))
            requeued = cur.rowcount
            cur.execute("DELETE FROM locks WHERE expires < %s", (now,))
            return requeued, failed

    # -- locks by failure signature -----------------------------------------------------------------
    @_pg_errors("take a lock")
    def try_lock(self, key: str, holder: str, ttl: float = LOCK_TTL_S) -> bool:
        now = self.clock()
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO locks (key, holder, expires) VALUES (%s, %s, %s) ON CONFLICT (key) DO UPDATE "
                "SET holder = excluded.holder, expires = excluded.expires "
                "WHERE locks.holder = excluded.holder OR locks.expires < %s RETURNING holder",
                (key, holder, now + ttl, now),
            )
            row = cur.fetchone()
            return row is not None and row["holder"] == holder

    @_pg_errors("free a lock")
    def unlock(self, key: str, holder: str) -> None:
        with self._tx() as cur:
            cur.execute(SQL.unlock, (key, holder))

    def lane_lock(
        self, key: str, holder: str, *, wait: float = LOCK_WAIT_S, poll: float = 0.2
    ) -> AbstractContextManager[None]:
        return held(
            lambda: self.try_lock(key, holder), lambda: self.unlock(key, holder), key, wait=wait, poll=poll
        )

    # -- reading ------------------------------------------------------------------------------------
    @_pg_errors("count the jobs")
    def counts(self) -> dict[str, int]:
        with self._tx() as cur:
            cur.execute(SQL.counts)
            found = {row["status"]: int(row["n"]) for row in cur.fetchall()}
        return {status: found.get(status, 0) for status in STATUSES}

    @_pg_errors("read a job")
    def get(self, job_id: int) -> Job | None:
        with self._tx() as cur:
            cur.execute(SQL.get, (job_id,))
            row = cur.fetchone()
        return job_from_row(row) if row else None

    @_pg_errors("read the next due time")
    def next_due(self) -> float | None:
        with self._tx() as cur:
            cur.execute(SQL.next_due)
            row = cur.fetchone()
        return None if row is None or row["t"] is None else float(row["t"])
