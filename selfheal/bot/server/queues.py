"""The job queue a server is started with: SQLite (embedded, the default) or PostgreSQL (shared)."""

from __future__ import annotations

from pathlib import Path

from selfheal.bot.server.jobs import Queue
from selfheal.bot.server.queue import JobQueue


def open_queue(where: str, *, max_attempts: int, retry_delay: float) -> Queue:
    """`postgresql://…` (or `postgres://…`): the shared PostgreSQL queue; anything else: a SQLite file."""
    if where.startswith(("postgresql://", "postgres://")):
        from selfheal.bot.server.pgqueue import PgJobQueue  # psycopg only where PostgreSQL is used

        return PgJobQueue(where, max_attempts=max_attempts, retry_delay=retry_delay)
    return JobQueue(Path(where), max_attempts=max_attempts, retry_delay=retry_delay)
