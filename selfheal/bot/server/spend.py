"""The bot's per-installation daily dollar cap on model spending, kept in the queue's database.

    daily_spend(config) -> DailySpend (SQLite) or PgDailySpend (PostgreSQL), as the queue is kept
    .budget_for(installation, job_max_usd) -> dollars one job may spend now (0: over the cap)
    .record(installation, dollars)

A day is a UTC calendar day. The table lives next to the jobs (the same SQLite file, or the same
PostgreSQL database, which servers sharing the queue share too), so a restart keeps what was
spent and two servers count one cap. A job's own max-usd is lowered to what is left of the day's cap;
a job that finds the cap spent heals with the search alone and says so.

    within_daily_cap(settings, spend, installation) -> the job's settings under the cap
    model_cost(outcome) -> what the job's model calls cost, to record
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from selfheal.bot.exceptions import BotError
from selfheal.bot.outcome import Outcome
from selfheal.bot.server.config import ServerConfig
from selfheal.bot.settings import BotSettings

SCHEMA = """
CREATE TABLE IF NOT EXISTS model_spend (
    installation_id INTEGER NOT NULL,
    day TEXT NOT NULL,
    usd REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (installation_id, day)
)
"""


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


def daily_spend(config: ServerConfig) -> DailySpend | PgDailySpend:
    if config.db_url:
        return PgDailySpend(config.db_url, config.daily_usd_cap)
    return DailySpend(config.db, config.daily_usd_cap)


class _DailyCap:
    """What both stores share: a job's budget from its own max-usd and what is left of the day."""

    cap_usd: float | None

    def spent(self, installation: int, day: str | None = None) -> float:
        raise NotImplementedError

    def budget_for(self, installation: int, job_max_usd: float | None) -> float | None:
        """What one job may spend: its own max-usd, lowered to what is left of the day's cap."""
        if self.cap_usd is None:
            return job_max_usd  # no cap: the database is not asked
        left = max(self.cap_usd - self.spent(installation), 0.0)
        return left if job_max_usd is None else min(job_max_usd, left)


class DailySpend(_DailyCap):
    def __init__(self, db: Path, cap_usd: float | None) -> None:
        self.db = db
        self.cap_usd = cap_usd
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.db, timeout=30.0, isolation_level=None)
            conn.execute(SCHEMA)
        except sqlite3.Error as exc:
            raise BotError(f"the spending table in {self.db}: {exc}") from exc
        return conn

    def spent(self, installation: int, day: str | None = None) -> float:
        with self._lock:
            conn = self._connect()
            try:
                row = conn.execute(
                    "SELECT usd FROM model_spend WHERE installation_id = ? AND day = ?",
                    (installation, day or today()),
                ).fetchone()
            finally:
                conn.close()
        return float(row[0]) if row else 0.0

    def record(self, installation: int, usd: float) -> None:
        if usd <= 0:
            return
        with self._lock:
            conn = self._connect()
            try:
                conn.execute(
                    "INSERT INTO model_spend (installation_id, day, usd) VALUES (?, ?, ?) "
                    "ON CONFLICT (installation_id, day) DO UPDATE SET usd = usd + excluded.usd",
                    (installation, today(), usd),
                )
            except sqlite3.Error as exc:
                raise BotError(f"recording spending in {self.db}: {exc}") from exc
            finally:
                conn.close()


class PgDailySpend(_DailyCap):
    """The same table in the PostgreSQL database of the shared queue (psycopg 3)."""

    def __init__(self, url: str, cap_usd: float | None) -> None:
        self.url = url
        self.cap_usd = cap_usd

    def __repr__(self) -> str:
        return "PgDailySpend(postgresql://…)"  # the URL may hold a password

    def _run(self, sql: str, params: tuple) -> tuple | None:
        import psycopg

        try:
            with psycopg.connect(self.url, connect_timeout=10) as conn, conn.cursor() as cur:
                cur.execute(SCHEMA)
                cur.execute(sql, params)
                return cur.fetchone() if cur.description else None
        except psycopg.Error as exc:
            raise BotError(f"the spending table in PostgreSQL: {type(exc).__name__}") from exc

    def spent(self, installation: int, day: str | None = None) -> float:
        row = self._run(
            "SELECT usd FROM model_spend WHERE installation_id = %s AND day = %s",
            (installation, day or today()),
        )
        return float(row[0]) if row else 0.0

    def record(self, installation: int, usd: float) -> None:
        if usd <= 0:
            return
        self._run(
            "INSERT INTO model_spend (installation_id, day, usd) VALUES (%s, %s, %s) "
            "ON CONFLICT (installation_id, day) DO UPDATE SET usd = model_spend.usd + EXCLUDED.usd",
            (installation, today(), usd),
        )


def within_daily_cap(
    settings: BotSettings, spend: DailySpend | PgDailySpend, installation: int
) -> BotSettings:
    """The settings of one job under its installation's daily dollar cap: its max-usd lowered to
    what is left of the day, or, with nothing left, no model at all (and a notice saying so)."""
    flags = settings.heal_flags
    if flags.get("provider", "none") == "none" and not flags.get("roles"):
        return settings
    budget = spend.budget_for(installation, flags.get("max_usd"))
    if budget is None or budget >= 0.0001:
        return replace(settings, heal_flags={**flags, "max_usd": budget})
    cap = f"${spend.cap_usd:.2f}" if spend.cap_usd is not None else "the cap"
    return replace(
        settings,
        heal_flags={**flags, "provider": "none", "roles": None, "model": None, "max_usd": None},
        notice=f"This installation spent its daily model budget ({cap} per UTC day): this heal used the "
        "search alone, without the model.",
    )


def model_cost(outcome: Outcome) -> float:
    """Dollars the heal's model calls cost (0 without a model or a report)."""
    metrics = (outcome.report or {}).get("metrics") or {}
    return float(metrics.get("cost_usd") or 0.0)
