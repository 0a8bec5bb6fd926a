"""Jobs about one failure running at the same time in `selfheal bot serve --executor local`: two
`/heal`s on two issues, and a `/heal` racing a red `workflow_run`. Their lanes differ (by issue, by
branch), so they heal in parallel; they meet at publishing, which the queue's lane by failure
signature and the publishing step's 422/lease handling make safe. Read where a maintainer reads it:
on the fake GitHub."""

from __future__ import annotations

import threading

import pytest

from tests.action.conftest import REPO
from tests.bot import payloads
from tests.bot.botserver import BOT_LOGIN, BotProcess, BotWorld, installed

pytestmark = pytest.mark.slow
ROUNDS = 10


def heal_on_issue(number: int, comment_id: int) -> dict:
    return installed(
        payloads.issue_comment("/heal", number=number, comment_id=comment_id, pull_request=False)
    )


def round_jobs(bot: BotProcess, round_: int) -> list[dict]:
    def finished() -> list[dict] | None:
        jobs = bot.jobs()[-2:]
        return jobs if len(jobs) == 2 and all(j["status"] in ("done", "failed") for j in jobs) else None

    return bot.wait_for(f"round {round_}: both jobs finished", finished, timeout=300)


def seed_heal_request(world: BotWorld, title: str) -> tuple[int, tuple[str, dict]]:
    """A new issue (the next free number: pull requests take numbers too) and alice's /heal on it."""
    number = world.fake.seed_issue(REPO, title=title, user="alice")
    world.fake.seed_comment(REPO, number, 9000 + number, "alice", "/heal")
    return number, ("issue_comment", heal_on_issue(number, 9000 + number))


def red_run(sha: str, run_id: int) -> dict:
    payload = payloads.workflow_run(conclusion="failure", head_sha=sha)
    payload["workflow_run"]["id"] = run_id  # each round's run is its own delivery, not a replay
    return installed(payload)


def deliver_at_once(bot: BotProcess, deliveries: list[tuple[str, dict]]) -> list[int]:
    barrier = threading.Barrier(len(deliveries))
    statuses = [0] * len(deliveries)

    def send(n: int) -> None:
        barrier.wait(timeout=10)
        statuses[n] = bot.deliver(*deliveries[n]).status

    threads = [threading.Thread(target=send, args=(n,)) for n in range(len(deliveries))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return statuses


def open_selfheal_pulls(world: BotWorld) -> list[dict]:
    return [p for p in world.repo_state()["pulls"]
            if p["head"]["ref"].startswith("selfheal/") and p["state"] == "open"]  # fmt: skip


def our_comments(world: BotWorld, number: int) -> list[dict]:
    return [c for c in world.repo_state()["comments"]
            if c["issue_number"] == number and c["user"]["login"] == BOT_LOGIN]  # fmt: skip


def reactions_on(world: BotWorld, comment_id: int) -> list[str]:
    return [r["content"] for r in world.repo_state()["reactions"] if r["comment_id"] == comment_id]


def close_by_deleting_the_branch(world: BotWorld, branch: str) -> None:
    """The maintainer deletes the branch (GitHub closes its pull request): the next round opens anew."""
    world.fake.github().get_repo(REPO).get_git_ref(f"heads/{branch}").delete()


def assert_concluded_with(world: BotWorld, number: int, comment_id: int, pull: dict) -> None:
    [progress] = our_comments(world, number)  # one comment per asking issue, concluded in place
    assert f"#{pull['number']}: {pull['html_url']}" in progress["body"]
    assert "⏳" not in progress["body"] and "😕" not in progress["body"]
    assert reactions_on(world, comment_id) == ["eyes", "rocket"]


def test_two_heals_of_one_failure_at_once_end_with_one_open_pull_request_ten_rounds(
    bot_world: BotWorld,
) -> None:
    bot = bot_world.start("--sandbox", "local", "--workers", "2")
    for round_ in range(ROUNDS):
        first, ask_1 = seed_heal_request(bot_world, "merge drops touching intervals")
        second, ask_2 = seed_heal_request(bot_world, "merge drops touching intervals")
        statuses = deliver_at_once(bot, [ask_1, ask_2])
        assert statuses == [202, 202]
        jobs = round_jobs(bot, round_)
        assert [(j["status"], j["attempts"], j["error"]) for j in jobs] == [("done", 1, None)] * 2, jobs
        [pull] = open_selfheal_pulls(bot_world)
        for number in (first, second):
            assert_concluded_with(bot_world, number, 9000 + number, pull)
        operations = sorted(j["result"].split("; pull request ")[1].split(":")[0] for j in jobs)
        assert operations in (["created", "none"], ["created", "updated"]), jobs
        close_by_deleting_the_branch(bot_world, pull["head"]["ref"])
        assert open_selfheal_pulls(bot_world) == []
    assert bot.terminate() == 0


def test_a_heal_racing_a_red_workflow_run_of_the_same_failure_ends_with_one_open_pull_request(
    bot_world: BotWorld,
) -> None:
    bot = bot_world.start("--sandbox", "local", "--workers", "2")
    for round_ in range(3):
        number, ask = seed_heal_request(bot_world, "main is red")
        statuses = deliver_at_once(
            bot, [ask, ("workflow_run", red_run(bot_world.shas["main"], 9911 + round_))]
        )
        assert statuses == [202, 202]
        jobs = round_jobs(bot, round_)
        assert [(j["status"], j["attempts"], j["error"]) for j in jobs] == [("done", 1, None)] * 2, jobs
        [pull] = open_selfheal_pulls(bot_world)
        assert_concluded_with(bot_world, number, 9000 + number, pull)
        assert all(pull["html_url"] in j["result"] for j in jobs)
        close_by_deleting_the_branch(bot_world, pull["head"]["ref"])
    assert bot.terminate() == 0
