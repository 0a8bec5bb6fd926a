"""The hostile-events corpus through the webhook bot: each event delivered, signed as GitHub signs it,
to `selfheal bot serve --executor local` (a real process), which decides at intake (bot/server/webhook.py) and
heals in a worker (bot/service.py Bot.handle). Per case: no crash (no traceback in the server's log, no
internal error or failed job), the right decision, and on the fake GitHub exactly its traces
(tests/action/hostile_world.py). The cases share one server and fake GitHub."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator

import pytest

from evaluation.hostile_events.cases import Case, load_cases
from tests.action.conftest import seed_remote
from tests.action.hostile_world import dump, judge, observe, prepare, record
from tests.bot.botserver import BOT_LOGIN, BotProcess, BotWorld, app_state, installed, make_app_key
from tests.fakes.github_server import FakeGitHub

CASES = load_cases()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BotWorld, BotProcess]]:
    tmp = tmp_path_factory.mktemp("hostile-bot")
    remote, shas = seed_remote(tmp)
    key = make_app_key(tmp / "keys")
    fake = FakeGitHub.start(tmp / "fake", app_state(remote, key.public_pem))
    world = BotWorld(tmp, remote, shas, key, fake, "whsec_" + secrets.token_hex(20))
    try:
        bot = world.start("--sandbox", "local", "--workers", "1", "--max-minutes", "5")
        yield world, bot
        assert bot.terminate() == 0
    finally:
        for process in world.bots:
            if process.proc.poll() is None:
                process.kill()
        fake.stop()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_event_through_the_bot(
    shared: tuple[BotWorld, BotProcess], case: Case, request: pytest.FixtureRequest
) -> None:
    started = time.monotonic()
    world, bot = shared
    prepared = prepare(case, CASES.index(case), world.fake, world.remote, world.shas, world.tmp)
    log_start = len(bot.output())
    answer = bot.deliver(prepared.event, installed(prepared.payload), delivery=f"hostile-{case.id}")
    crash, said, status = "", f"{answer.status} {answer.body}", "error"
    if answer.status == 200 and answer.body.get("status") == "ignored":
        status = "ignored"
    elif answer.status == 202:
        job = bot.wait_for(f"job {answer.body['job']}", lambda: settled(bot, answer.body["job"]), 240)
        said = job["result"] or ""
        status = said.split(";")[0].split(":")[0].strip()
        if job["status"] != "done" or "internal error" in said:
            crash = f"job {job['status']}: {said}"
    log = bot.output()[log_start:]
    if "Traceback" in log:
        crash += f"\n{log[-1500:]}"
    seen = observe(prepared, world.fake, world.remote, BOT_LOGIN, status, crash, said)
    wrong = judge(case, seen)
    record(request.config, "bot", case, seen, wrong, started)
    assert not wrong, f"{wrong}\n{dump(seen)}\nanswer: {answer}\nlog:\n{log[-3000:]}"
    for secret in world.secrets():
        assert secret not in log


def settled(bot: BotProcess, job_id: int) -> dict | None:
    """The job once it is done or failed, or has failed once and waits for a retry (a crash too)."""
    [job] = [j for j in bot.jobs() if j["id"] == job_id]
    return job if job["status"] in ("done", "failed") or job["result"] else None
