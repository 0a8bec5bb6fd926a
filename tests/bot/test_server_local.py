"""`selfheal bot serve --executor local` end to end: signed deliveries in, the heal runs in the server
with an installation token, and the outcome is read where a maintainer reads it: on the fake GitHub."""

from __future__ import annotations

import pytest

from tests.action.conftest import REPO
from tests.bot import payloads
from tests.bot.botserver import BOT_LOGIN, BotWorld, files_text, installed

pytestmark = pytest.mark.slow


def heal_comment(number: int, comment_id: int, login: str = "alice", pull: bool = True) -> dict:
    return installed(payloads.issue_comment("/heal", login=login, number=number, comment_id=comment_id,
                                            pull_request=pull))  # fmt: skip


def selfheal_pulls(world: BotWorld) -> list[dict]:
    return [p for p in world.repo_state()["pulls"] if p["head"]["ref"].startswith("selfheal/")]


def our_comments(world: BotWorld, number: int) -> list[dict]:
    state = world.repo_state()
    return [c for c in state["comments"] if c["issue_number"] == number and c["user"]["login"] == BOT_LOGIN]


def reactions_on(world: BotWorld, comment_id: int) -> list[str]:
    return [r["content"] for r in world.repo_state()["reactions"] if r["comment_id"] == comment_id]


def test_a_heal_comment_is_healed_here_and_opens_one_pull_request(bot_world: BotWorld) -> None:
    bot = bot_world.start("--sandbox", "local", "--workers", "2")
    bot_world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")

    queued = bot.deliver("issue_comment", heal_comment(7, 5001), delivery="delivery-1")
    again = bot.deliver("issue_comment", heal_comment(7, 5001), delivery="delivery-1")  # GitHub redelivers
    assert (queued.status, queued.body) == (202, {"status": "queued", "job": 1})
    assert (again.status, again.body) == (200, {"status": "duplicate", "job": 1})

    [job] = bot.wait_jobs("done", 1)
    late = bot.deliver("issue_comment", heal_comment(7, 5001), delivery="delivery-1")
    replay = bot.deliver("issue_comment", heal_comment(7, 5001), delivery="forged-new-id")  # same signed body
    assert late.body == replay.body == {"status": "duplicate", "job": 1}
    assert len(bot.jobs()) == 1
    assert bot.health()["queue"] == {"queued": 0, "running": 0, "done": 1, "failed": 0}

    [pull] = selfheal_pulls(bot_world)
    assert pull["base"]["ref"] == "feature" and pull["draft"] is False
    assert pull["title"] == "selfheal: fix `merge` in intervals/core.py"
    assert [r["login"] for r in pull["requested_reviewers"]] == ["alice"]
    assert [label["name"] for label in pull["labels"]] == ["selfheal"]
    assert reactions_on(bot_world, 5001) == ["eyes", "rocket"]
    [progress] = our_comments(bot_world, 7)
    assert f"Pull request opened #{pull['number']}" in progress["body"]
    assert (job["attempts"], job["installation_id"], job["lane"]) == (1, 77, "acme/widgets#7")
    assert job["result"].startswith(f"healed; pull request created: {pull['html_url']}; report ")
    assert (bot_world.tmp / "bot" / "queue-runs" / "job-1-1" / "report.json").is_file()

    # everything on GitHub was done as the installation, with one token, never in a URL
    requests = bot_world.fake.requests()
    writes = [r for r in requests if r["method"] in ("POST", "PATCH") and "/access_tokens" not in r["path"]]
    assert writes and {r["principal"] for r in writes} == {"installation:77"}
    pushes = [r for r in requests if r["kind"] == "git" and "receive-pack" in r["path"]]
    assert pushes and {r["principal"] for r in pushes} == {"installation:77"}
    assert [r["principal"] for r in requests if r["path"].endswith("/access_tokens")] == ["app"]
    assert not [r for r in requests if r["token_in_url"]]
    # and that token reaches the one repository it heals, with what a heal needs only
    [token] = bot_world.fake.state()["app_tokens"]
    assert (token["repositories"], token["permissions"]) == (
        [REPO], {"contents": "write", "pull_requests": "write", "issues": "write"},
    )  # fmt: skip

    assert bot.terminate() == 0
    stored = files_text(bot_world.tmp / "bot")  # the queue's db, -wal, -shm, the runs and the log
    for secret in bot_world.secrets():
        assert secret not in bot.output()
        assert secret not in stored


def test_a_killed_server_runs_its_interrupted_and_queued_jobs_once_after_a_restart(
    bot_world: BotWorld,
) -> None:
    options = ("--sandbox", "local", "--workers", "1", "--stop-timeout", "0.5")
    bot_world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")
    bot_world.fake.seed_comment(REPO, 3, 6001, "bob", "/heal")
    first = bot_world.start(*options)
    assert first.deliver("issue_comment", heal_comment(7, 5001), delivery="heal-7").status == 202
    first.wait_for("job 1 running", lambda: first.jobs()[0]["status"] == "running")
    assert (
        first.deliver("issue_comment", heal_comment(3, 6001, "bob", pull=False), delivery="bob-3").status
        == 202
    )

    # SIGTERM mid-heal: the job does not finish in time, goes back to the queue, its attempt not counted
    assert first.terminate() == 0
    assert "job 1: still running at stop; put back in the queue" in first.output()
    assert [(j["status"], j["attempts"]) for j in first.jobs()] == [("queued", 0), ("queued", 0)]

    # SIGKILL mid-heal: nothing runs at exit, the job is left `running`
    second = bot_world.start(*options)
    second.wait_for("job 1 running again", lambda: second.jobs()[0]["status"] == "running")
    second.kill()
    assert [(j["status"], j["attempts"]) for j in second.jobs()] == [("running", 1), ("queued", 0)]

    third = bot_world.start(*options)
    assert "1 interrupted job(s) queued again, 0 failed for good" in third.output()
    jobs = third.wait_jobs("done", 2)
    assert [(j["delivery_id"], j["attempts"]) for j in jobs] == [("heal-7", 2), ("bob-3", 1)]
    assert jobs[1]["result"].startswith("refused: bob has read access; write is needed")
    assert third.deliver("issue_comment", heal_comment(7, 5001), delivery="heal-7").body == {
        "status": "duplicate", "job": 1,
    }  # fmt: skip

    [pull] = selfheal_pulls(bot_world)
    assert pull["base"]["ref"] == "feature"
    assert len(our_comments(bot_world, 3)) == 1  # bob was told once
    assert reactions_on(bot_world, 5001)[-1] == "rocket"
    assert third.terminate() == 0
    assert list((bot_world.tmp / "bot" / "queue-work").iterdir()) == []  # the interrupted clones are gone


def test_a_passing_failure_is_retried_and_the_job_then_done(bot_world: BotWorld) -> None:
    bot_world.fake.seed_comment(REPO, 3, 6001, "bob", "/heal")
    bot_world.fake.fail(r"/access_tokens$", method="POST", status=502, times=1)
    bot = bot_world.start("--sandbox", "local")
    assert bot.deliver("issue_comment", heal_comment(3, 6001, "bob", pull=False)).status == 202
    [job] = bot.wait_jobs("done", 1, timeout=30)
    assert job["attempts"] == 2
    assert (
        job["error"]
        == "GitHubError: GitHub answered 502 trying to get a token for installation 77: Server Error"
    )
    assert "job 1: failed, will be retried" in bot.output()
    assert len(our_comments(bot_world, 3)) == 1
    assert bot.terminate() == 0
