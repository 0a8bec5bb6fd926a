"""The job queue's SQL, written once for SQLite (queue.py) and PostgreSQL (pgqueue.py).

    Statements(SQLITE | POSTGRES) -> the statements both queues run, in that database's words
    schema(dialect), finishing(job, result, ...), job_from_row(row), held(try_lock, unlock, ...)

The two databases differ in the parameter placeholder (`?`, `%s`), the column types, the name of
the larger-of-two function, and in what sharing needs: PostgreSQL's running jobs carry a
heartbeat, and only jobs whose heartbeat stopped are recovered there. What else differs (the claim's
row and lane locks, the lock table's takeover) stays with its queue.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from selfheal.bot.exceptions import QueueError
from selfheal.bot.server.jobs import DONE, FAILED, QUEUED, Job, JobResult


class Row(Protocol):
    """A row read by column name: sqlite3.Row, or psycopg's dict_row."""

    def __getitem__(self, key: str) -> Any: ...


@dataclass(frozen=True)
class Dialect:
    mark: str  # the parameter placeholder
    serial: str  # an auto-numbered primary key
    bigint: str
    real: str
    greatest: str  # the larger of two values
    beats: bool  # running jobs carry a heartbeat: several servers share the queue

    def sql(self, text: str) -> str:
        """`text`, written with `?` placeholders, in this database's."""
        return text.replace("?", self.mark)


SQLITE = Dialect("?", "INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER", "REAL", "MAX", beats=False)
POSTGRES = Dialect("%s", "BIGSERIAL PRIMARY KEY", "BIGINT", "DOUBLE PRECISION", "GREATEST", beats=True)

# the columns of `jobs`: name, type (a dialect's field when in braces), constraints
_COLUMNS = (
    ("id", "{serial}", ""),
    ("delivery_id", "TEXT", "NOT NULL UNIQUE"),
    ("event", "TEXT", "NOT NULL"),
    ("payload", "TEXT", "NOT NULL"),
    ("body_sha256", "TEXT", "NOT NULL UNIQUE"),
    ("installation_id", "{bigint}", ""),
    ("repo", "TEXT", "NOT NULL"),
    ("lane", "TEXT", "NOT NULL"),
    ("status", "TEXT", "NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed'))"),
    ("attempts", "INTEGER", "NOT NULL DEFAULT 0"),
    ("claim", "TEXT", ""),
    ("worker", "TEXT", ""),
    ("heartbeat", "{real}", ""),  # PostgreSQL only
    ("not_before", "{real}", "NOT NULL DEFAULT 0"),
    ("created_at", "{real}", "NOT NULL"),
    ("updated_at", "{real}", "NOT NULL"),
    ("started_at", "{real}", ""),
    ("finished_at", "{real}", ""),
    ("result", "TEXT", ""),
    ("error", "TEXT", ""),
)


def schema(dialect: Dialect) -> str:
    types = {"serial": dialect.serial, "bigint": dialect.bigint, "real": dialect.real}
    columns = [
        f"    {name:<15} " + (f"{kind.format(**types):<7} {rest}" if rest else kind.format(**types))
        for name, kind, rest in _COLUMNS
        if name != "heartbeat" or dialect.beats
    ]
    return (
        "\nCREATE TABLE IF NOT EXISTS jobs (\n" + ",\n".join(columns) + "\n);\n"
        "CREATE INDEX IF NOT EXISTS jobs_due ON jobs (status, not_before, id);\n"
        "CREATE INDEX IF NOT EXISTS jobs_lane ON jobs (lane, status);\n"
        "CREATE TABLE IF NOT EXISTS locks (\n"
        "    key     TEXT PRIMARY KEY,\n"
        "    holder  TEXT NOT NULL,\n"
        f"    expires {dialect.real} NOT NULL\n"
        ");\n"
    )


class Statements:
    """The statements both queues run, for one database."""

    def __init__(self, dialect: Dialect) -> None:
        q = dialect.sql
        # a running job whose server may be gone: any (one server per file) or one that stopped beating
        gone = " AND heartbeat < ?" if dialect.beats else ""
        self.enqueue = q(
            "INSERT INTO jobs (delivery_id, event, payload, body_sha256, installation_id, repo, lane, "
            "status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?) "
            "ON CONFLICT DO NOTHING"
        )
        self.seen = q("SELECT id FROM jobs WHERE delivery_id = ? OR body_sha256 = ? ORDER BY id LIMIT 1")
        self.due = q(
            "SELECT id, lane FROM jobs WHERE status = 'queued' AND not_before <= ? "
            "AND lane NOT IN (SELECT lane FROM jobs WHERE status = 'running') ORDER BY id LIMIT 1"
        )
        self.take = q(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, claim = ?, worker = ?, "
            "started_at = ?, updated_at = ?" + (", heartbeat = ?" if dialect.beats else "")
            + " WHERE id = ? AND status = 'queued'"
        )  # fmt: skip
        self.release = q(
            f"UPDATE jobs SET status = 'queued', attempts = {dialect.greatest}(attempts - 1, 0), "
            "claim = NULL, error = 'interrupted: the server stopped while it ran', updated_at = ? "
            "WHERE id = ? AND status = 'running' AND claim = ?"
        )
        self.fail_gone = q(
            "UPDATE jobs SET status = 'failed', claim = NULL, finished_at = ?, updated_at = ?, "
            "error = 'the server died while running it, ' || attempts || ' times' "
            f"WHERE status = 'running'{gone} AND attempts >= ?"
        )
        self.requeue_gone = q(
            "UPDATE jobs SET status = 'queued', claim = NULL, updated_at = ?, "
            f"error = 'interrupted: the server died while it ran' WHERE status = 'running'{gone}"
        )
        self.unlock = q("DELETE FROM locks WHERE key = ? AND holder = ?")
        self.counts = "SELECT status, COUNT(*) AS n FROM jobs GROUP BY status"
        self.get = q("SELECT * FROM jobs WHERE id = ?")
        self.next_due = "SELECT MIN(not_before) AS t FROM jobs WHERE status = 'queued'"
        self._dialect = dialect

    def finishing(
        self, job: Job, result: JobResult, now: float, *, max_attempts: int, retry_delay: float
    ) -> tuple[str, str, tuple[Any, ...]]:
        """The job's next status, and the statement and parameters that record `result`: done, queued
        again after a delay that doubles with each attempt, or failed once the attempts are spent."""
        if result.ok:
            status, sets, values = DONE, "result = ?, finished_at = ?", (result.summary, now)
        elif result.retry and job.attempts < max_attempts:
            delay = retry_delay * 2 ** max(0, job.attempts - 1)
            status, sets, values = QUEUED, "error = ?, not_before = ?", (result.summary, now + delay)
        else:
            status, sets, values = FAILED, "error = ?, finished_at = ?", (result.summary, now)
        sql = self._dialect.sql(
            f"UPDATE jobs SET status = ?, {sets}, claim = NULL, updated_at = ? "
            "WHERE id = ? AND status = 'running' AND claim = ?"
        )
        return status, sql, (status, *values, now, job.id, job.claim)


def job_from_row(row: Row) -> Job:
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


@contextmanager
def held(
    try_lock: Callable[[], bool], unlock: Callable[[], None], key: str, *, wait: float, poll: float
) -> Iterator[None]:
    """Hold a lock for the block, waiting for another holder first. Raises QueueError when it stays
    taken for `wait` seconds."""
    deadline = time.monotonic() + wait
    while not try_lock():
        if time.monotonic() > deadline:
            raise QueueError(f"the lane {key} stayed busy for {wait:.0f}s")
        time.sleep(poll)
    try:
        yield
    finally:
        unlock()
