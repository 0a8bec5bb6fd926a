"""The job queue a server is started with: SQLite (embedded, the default) or PostgreSQL (shared)."""

from __future__ import annotations

from pathlib import Path

from selfheal.bot.queue import JobQueue, Queue


def open_queue(where: str, *, max_attempts: int, retry_delay: float) -> Queue:
    """`postgresql://…` (or `postgres://…`): the shared PostgreSQL queue; anything else: a SQLite file."""
    if where.startswith(("postgresql://", "postgres://")):
        from selfheal.bot.pgqueue import PgJobQueue  # psycopg only where PostgreSQL is used

        return PgJobQueue(where, max_attempts=max_attempts, retry_delay=retry_delay)
    return JobQueue(Path(where), max_attempts=max_attempts, retry_delay=retry_delay)
