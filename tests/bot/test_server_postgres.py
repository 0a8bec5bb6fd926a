"""Two `selfheal bot serve` processes sharing one real PostgreSQL queue: one is killed (SIGKILL)
mid-heal, the other takes its job back once its heartbeat stops, and every job is done exactly once,
with one pull request."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families
from psycopg.rows import dict_row

from tests.action.conftest import REPO
from tests.bot import payloads
from tests.bot.botserver import BOT_LOGIN, BotProcess, BotWorld, installed, start_bot
from tests.fakes.github_server import RATE_LIMIT

pytestmark = pytest.mark.slow


@dataclass
class PgBot(BotProcess):
    def jobs(self) -> list[dict[str, Any]]:
        with psycopg.connect(str(self.db), row_factory=dict_row) as conn:
            return list(conn.execute("SELECT * FROM jobs ORDER BY id"))


def start_pg_bot(world: BotWorld, url: str, *extra: str) -> PgBot:
    bot = start_bot(world.tmp / "bot", world.key, world.fake, url, *extra, secret=world.secret)  # type: ignore
    world.bots.append(bot)
    return PgBot(**{f.name: getattr(bot, f.name) for f in fields(bot)})


def test_a_server_killed_mid_heal_loses_its_job_to_the_other_which_runs_it_once(
    bot_world: BotWorld, postgres_url: str
) -> None:
    options = ("--sandbox", "local", "--workers", "1")
    bot_world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")
    bot_world.fake.seed_comment(REPO, 3, 6001, "bob", "/heal")
    first = start_pg_bot(bot_world, postgres_url, *options)
    heal = installed(payloads.issue_comment("/heal", number=7, comment_id=5001))
    assert first.deliver("issue_comment", heal, delivery="heal-7").status == 202
    first.wait_for("job 1 running on the first server", lambda: first.jobs()[0]["status"] == "running")
    assert f":{first.proc.pid}:" in first.jobs()[0]["worker"]

    second = start_pg_bot(bot_world, postgres_url, *options)
    assert "queue postgresql://127.0.0.1:" in second.output() and "selfheal@" not in second.output()
    bob = installed(
        payloads.issue_comment("/heal", number=3, comment_id=6001, login="bob", pull_request=False)
    )
    assert second.deliver("issue_comment", bob, delivery="bob-3").status == 202
    assert second.deliver("issue_comment", heal, delivery="heal-7").body == {"status": "duplicate", "job": 1}
    first.kill()

    jobs = second.wait_jobs("done", 2, timeout=400)
    assert [(j["delivery_id"], j["attempts"]) for j in jobs] == [("heal-7", 2), ("bob-3", 1)]
    assert f":{second.proc.pid}:" in jobs[0]["worker"]
    assert jobs[0]["error"] == "interrupted: the server died while it ran"
    assert "1 job(s) of a server that stopped queued again, 0 failed for good" in second.output()

    pulls = [p for p in bot_world.repo_state()["pulls"] if p["head"]["ref"].startswith("selfheal/")]
    assert len(pulls) == 1 and pulls[0]["state"] == "open"
    comments = bot_world.repo_state()["comments"]
    [progress] = [c for c in comments if c["issue_number"] == 7 and c["user"]["login"] == BOT_LOGIN]
    assert (
        f"#{pulls[0]['number']}: {pulls[0]['html_url']}" in progress["body"]
    )  # the first attempt's, adopted
    assert "⏳" not in progress["body"]
    assert len([c for c in comments if c["issue_number"] == 3 and c["user"]["login"] == BOT_LOGIN]) == 1
    scraped = second.opener.open(second.url + "/metrics", timeout=10).read().decode()
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(scraped) for s in family.samples}  # fmt: skip
    assert samples[("selfheal_jobs_total", (("outcome", "done"),))] == 2.0  # both ran here
    remaining = samples[("selfheal_github_rate_limit_remaining", (("installation", "77"),))]
    assert 0 < remaining < RATE_LIMIT  # the fake's X-RateLimit-Remaining after the heal's requests
    assert second.terminate() == 0
