"""`selfheal bot serve` heals with a model: provider and budget from the server's options, the key
from the server's environment only, and each installation's daily dollar cap in the queue database."""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.action.conftest import REPO
from tests.action.model_world import CONCLUSION, FIXED, anthropic_script, seed_temps_remote
from tests.bot import payloads
from tests.bot.botserver import BOT_LOGIN, BotWorld, app_state, files_text, installed, make_app_key
from tests.conftest import git
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow
KEY = "k3y-" + "9" * 40


@pytest.fixture
def temps_bot_world(tmp_path: Path) -> Iterator[BotWorld]:
    remote, shas = seed_temps_remote(tmp_path)
    key = make_app_key(tmp_path / "keys")
    fake = FakeGitHub.start(tmp_path / "fake", app_state(remote, key.public_pem))
    world = BotWorld(tmp_path, remote, shas, key, fake, "whsec_" + secrets.token_hex(20))
    try:
        yield world
    finally:
        for bot in world.bots:
            if bot.proc.poll() is None:
                bot.kill()
        fake.stop()


def heal_comment(number: int, comment_id: int) -> dict:
    return installed(payloads.issue_comment("/heal", number=number, comment_id=comment_id))


def test_the_bot_heals_with_claude_and_counts_the_installations_spending(temps_bot_world: BotWorld) -> None:
    world = temps_bot_world
    fake = FakeAnthropic.start(world.tmp / "claude", {"api_key": KEY, "steps": anthropic_script()})
    try:
        bot = world.start(
            "--sandbox", "local", "--max-minutes", "3", "--role", "memory=none", "--daily-usd-cap", "0.03",
            env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.url},
        )  # fmt: skip
        world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")
        bot.deliver("issue_comment", heal_comment(7, 5001), delivery="d-1")
        [job] = bot.wait_jobs("done", 1, timeout=400)
        requests = fake.requests()
    finally:
        fake.stop()
    assert job["result"].startswith("healed; pull request created"), job["result"]
    assert [r["status"] for r in requests] == [200] * 7
    # the job's run folder holds the model's conversation per role, shown in its report.html
    run_dir = Path(job["result"].rsplit("; report ", 1)[1])
    calls = [json.loads(line) for line in (run_dir / "conversation.jsonl").read_text().splitlines()]
    assert {c["role"] for c in calls} >= {"debugger", "generator"}
    assert '<details class="role"><summary>generator — ' in (run_dir / "report.html").read_text(
        encoding="utf-8"
    )
    assert KEY not in (run_dir / "conversation.jsonl").read_text() + (run_dir / "report.html").read_text()
    [pull] = [p for p in world.repo_state()["pulls"] if p["head"]["ref"].startswith("selfheal/")]
    diff = git(world.tmp, "--git-dir", str(world.remote), "diff", world.shas["feature"], pull["head"]["ref"])
    assert "+" + FIXED.rstrip() in diff.splitlines()
    assert (
        CONCLUSION["root_cause"] in pull["body"]
        and "| **total** | 7 | 8000 | 610 | $0.0221 |" in pull["body"]
    )
    with sqlite3.connect(world.db) as conn:
        rows = conn.execute("SELECT installation_id, usd FROM model_spend").fetchall()
    assert rows == [(job["installation_id"], pytest.approx(0.0221))]
    scraped = bot.opener.open(bot.url + "/metrics", timeout=10).read().decode()
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(scraped) for s in family.samples}  # fmt: skip
    assert samples[("selfheal_model_tokens_total", (("direction", "in"), ("provider", "anthropic")))] == 8000
    assert samples[("selfheal_model_tokens_total", (("direction", "out"), ("provider", "anthropic")))] == 610
    assert samples[("selfheal_model_usd_total", (("provider", "anthropic"),))] == pytest.approx(0.0221)
    assert (
        samples[
            ("selfheal_github_operations_total", (("operation", "open a pull request"), ("outcome", "ok")))
        ]
        == 1
    )

    # the next job has $0.0079 of the day's $0.03 left: the model stops at the first answer over it
    second = FakeAnthropic.start(world.tmp / "claude2", {"api_key": KEY, "steps": anthropic_script()})
    try:
        bot.terminate()
        bot = world.start(
            "--sandbox", "local", "--max-minutes", "1", "--role", "memory=none", "--daily-usd-cap", "0.03",
            env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": second.url},
        )  # fmt: skip
        world.fake.seed_comment(REPO, 7, 5002, "alice", "/heal")
        bot.deliver("issue_comment", heal_comment(7, 5002), delivery="d-2")
        bot.wait_jobs("done", 2, timeout=400)
        used = second.requests()
    finally:
        second.stop()
    assert len(used) >= 1  # $0.0079 left: the first answer ($0.0019) is asked, then more until over
    with sqlite3.connect(world.db) as conn:
        [(spent,)] = conn.execute("SELECT usd FROM model_spend").fetchall()
    assert spent >= 0.03
    bot.terminate()

    # over the cap: the third heal runs with the search alone, and the comment says so
    third = FakeAnthropic.start(world.tmp / "claude3", {"api_key": KEY, "steps": anthropic_script()})
    try:
        bot = world.start(
            "--sandbox", "local", "--max-minutes", "1", "--daily-usd-cap", "0.03",
            env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": third.url},
        )  # fmt: skip
        world.fake.seed_comment(REPO, 3, 5003, "alice", "/heal")
        bot.deliver(
            "issue_comment",
            installed(payloads.issue_comment("/heal", number=3, comment_id=5003, pull_request=False)),
            delivery="d-3",
        )
        bot.wait_jobs("done", 3, timeout=400)
        assert third.requests() == []
    finally:
        third.stop()
    comments = [
        c
        for c in world.repo_state()["comments"]
        if c["issue_number"] == 3 and c["user"]["login"] == BOT_LOGIN
    ]
    assert "This installation spent its daily model budget ($0.03 per UTC day)" in comments[-1]["body"]
    bot.terminate()
    assert KEY not in files_text(world.tmp / "bot") + bot.output() + json.dumps(world.fake.state())
