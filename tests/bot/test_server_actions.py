"""`selfheal bot serve --executor actions`: no code runs here; the heal workflow is dispatched on the
repository, and what needs the conversation (permission, 👀, refusals) is answered from here."""

from __future__ import annotations

import json

from tests.action.conftest import REPO
from tests.bot import payloads
from tests.bot.botserver import BOT_LOGIN, HEAL_WORKFLOW, BotWorld, installed

TEST_COMMAND = "python -m pytest -q"


def comment(body: str, number: int, comment_id: int, login: str = "alice", pull: bool = True) -> dict:
    return installed(payloads.issue_comment(body, login=login, number=number, comment_id=comment_id,
                                            pull_request=pull))  # fmt: skip


def red(branch: str, sha: str, installation: int | None = 77, **kwargs: object) -> dict:
    payload = payloads.workflow_run(conclusion="failure", head_sha=sha, head_branch=branch, **kwargs)  # type: ignore[arg-type]
    return installed(payload, installation)


def our_comments(world: BotWorld, number: int) -> list[str]:
    state = world.repo_state()
    return [
        c["body"]
        for c in state["comments"]
        if c["issue_number"] == number and c["user"]["login"] == BOT_LOGIN
    ]


def reactions_on(world: BotWorld, comment_id: int) -> list[str]:
    return [r["content"] for r in world.repo_state()["reactions"] if r["comment_id"] == comment_id]


def test_events_are_forwarded_to_the_heal_workflow_or_answered_here(bot_world: BotWorld) -> None:
    fake, shas = bot_world.fake, bot_world.shas
    for number, cid, login, body in ((7, 5001, "alice", "/heal"), (7, 6001, "bob", "/heal"),
                                     (7, 5002, "alice", "/heal dry-run"),
                                     (3, 5003, "alice", "/heal tests/test_core.py")):  # fmt: skip
        fake.seed_comment(REPO, number, cid, login, body)
    bot = bot_world.start("--executor", "actions", "--workers", "2", "--test-command", TEST_COMMAND)

    forwarded = [
        bot.deliver("workflow_run", red("feature", shas["feature"])),
        bot.deliver("issue_comment", comment("/heal", 7, 5001)),
        bot.deliver("issue_comment", comment("/heal", 7, 6001, login="bob")),
        bot.deliver("issue_comment", comment("/heal dry-run", 7, 5002)),
        bot.deliver("issue_comment", comment("/heal tests/test_core.py", 3, 5003, pull=False)),
    ]
    assert [r.status for r in forwarded] == [202] * 5
    own_failure = red("main", shas["main"])
    own_failure["workflow_run"]["path"] = own_failure["workflow"]["path"] = HEAL_WORKFLOW["path"]
    assert bot.deliver("workflow_run", own_failure).status == 202
    not_forwarded = [
        bot.deliver("workflow_dispatch", installed(payloads.workflow_dispatch(ref="feature"))),
        bot.deliver("workflow_run", red("feature", shas["feature"], head_repo="mallory/widgets")),
        bot.deliver("workflow_run", red("selfheal/0123456789ab", shas["feature"])),
        bot.deliver("workflow_run", red("feature", shas["feature"], head_repo=None)),  # a deleted fork
    ]
    assert [(r.status, r.body["status"]) for r in not_forwarded] == [(200, "ignored")] * 4
    assert (
        not_forwarded[0].body["reason"].startswith("a workflow_dispatch is already a run on GitHub Actions")
    )
    assert (
        not_forwarded[1].body["reason"]
        == "the red run is of the fork mallory/widgets; fork code is not healed"
    )
    assert not_forwarded[3].body["reason"] == "the red run is of a deleted fork; fork code is not healed"

    jobs = bot.wait_jobs("done", 6, timeout=60)
    results = [j["result"] for j in jobs]
    assert results[0].startswith("dispatched heal.yml on main to heal feature: http")
    assert results[2] == "refused: bob has read access; write is needed"
    assert results[3] == "refused: a dry run cannot be forwarded to the heal workflow"
    assert results[5] == "ignored: the heal workflow's own run failed; not dispatched again"

    dispatches = bot_world.repo_state()["dispatches"]
    assert [(d["workflow_path"], d["ref"], d["inputs"], d["principal"]) for d in dispatches] == [
        (HEAL_WORKFLOW["path"], "main", {"ref": "feature", "test-command": TEST_COMMAND}, "installation:77"),
        (HEAL_WORKFLOW["path"], "main", {"ref": "feature", "test-command": TEST_COMMAND}, "installation:77"),
        (HEAL_WORKFLOW["path"], "main", {"ref": "main", "test-command": TEST_COMMAND}, "installation:77"),
    ]

    # the conversation: who may, who may not, what cannot be forwarded, where the run is
    assert reactions_on(bot_world, 5001) == ["eyes"]
    assert reactions_on(bot_world, 6001) == ["confused"]
    assert reactions_on(bot_world, 5002) == ["confused"]
    assert reactions_on(bot_world, 5003) == ["eyes"]
    on_pull = our_comments(bot_world, 7)
    assert any("@bob, selfheal runs for people with **write** access" in body for body in on_pull)
    assert any("it cannot do a dry run" in body for body in on_pull)
    [healing] = [body for body in on_pull if "is healing" in body]
    run_id = dispatches[1]["workflow_run_id"]
    assert (
        f"selfheal is healing `feature` on GitHub Actions (heal.yml): {fake.url}/{REPO}/actions/runs/{run_id}"
        in healing
    )
    [on_issue] = our_comments(bot_world, 3)
    assert "healing `main`" in on_issue and "The test targets in the command are not passed on" in on_issue
    assert all(body.startswith("<!-- selfheal -->") for body in [*on_pull, on_issue])

    # no code was fetched, let alone run, by this server
    assert not [r for r in fake.requests() if r["kind"] == "git"]
    assert not (bot_world.tmp / "bot" / "queue-runs").exists()
    assert bot.terminate() == 0
    for secret in bot_world.secrets():
        assert secret not in bot.output()


def test_a_missing_workflow_fails_for_good_and_a_server_error_is_retried(bot_world: BotWorld) -> None:
    bot_world.fake.fail(r"/actions/workflows/heal\.yml$", method="GET", status=404, times=1)
    bot_world.fake.fail(r"/dispatches$", method="POST", status=502, times=1)
    bot = bot_world.start("--executor", "actions", "--workers", "1")
    assert bot.deliver("workflow_run", red("feature", bot_world.shas["feature"])).status == 202
    [missing] = bot.wait_jobs("failed", 1, timeout=30)
    assert missing["attempts"] == 1
    assert missing["error"].startswith("GitHubError: acme/widgets has no workflow heal.yml: add ")

    assert bot.deliver("workflow_run", red("green", bot_world.shas["green"])).status == 202
    jobs = bot.wait_jobs("done", 1, timeout=30)
    assert (jobs[1]["attempts"], jobs[1]["error"]) == (
        2, "GitHubError: GitHub answered 502 to start the heal workflow: Server Error",
    )  # fmt: skip
    [dispatch] = bot_world.repo_state()["dispatches"]
    assert (dispatch["ref"], dispatch["inputs"]) == ("main", {"ref": "green"})

    # an older GitHub Enterprise Server that does not know return_run_details; a payload without
    # the installation (found through GET /repos/{owner}/{repo}/installation)
    refusal = 'Invalid request.\n\n"return_run_details" is not a permitted key.'
    bot_world.fake.fail(r"/dispatches$", method="POST", status=422, times=1, message=refusal)
    assert bot.deliver("workflow_run", red("main", bot_world.shas["main"], installation=None)).status == 202
    jobs = bot.wait_jobs("done", 2, timeout=30)
    assert jobs[2]["result"] == (
        f"dispatched heal.yml on main to heal main: {bot_world.fake.url}/{REPO}/actions/workflows/heal.yml"
    )
    assert jobs[2]["installation_id"] is None and jobs[2]["attempts"] == 1
    assert [d["inputs"]["ref"] for d in bot_world.repo_state()["dispatches"]] == ["green", "main"]
    lookups = [r for r in bot_world.fake.requests() if r["path"] == "/api/v3/repos/acme/widgets/installation"]
    assert [(r["status"], r["principal"]) for r in lookups] == [(200, "app")]
    assert bot.terminate() == 0


def test_the_servers_model_and_budgets_travel_with_the_dispatch(bot_world: BotWorld) -> None:
    # Scaling out to the repository's runners must not drop the operator's model: heal.yml takes
    # provider, model, roles, budgets and prices as dispatch inputs and hands them to the action.
    # (The key is the repository's own secret there: the server's never leaves the server.)
    model = ("--provider", "anthropic", "--model", "claude-unlisted-9", "--role", "critic=none",
             "--max-usd", "0.5", "--max-tokens", "40000", "--price", "claude-unlisted-9=2,10")  # fmt: skip
    server_key = "sk-ant-api03-" + "x" * 40
    bot = bot_world.start(
        "--executor", "actions", "--workers", "1", *model, env={"ANTHROPIC_API_KEY": server_key}
    )
    assert bot.deliver("workflow_run", red("feature", bot_world.shas["feature"])).status == 202
    bot.wait_jobs("done", 1, timeout=30)
    [dispatch] = bot_world.repo_state()["dispatches"]
    [token] = bot_world.fake.state()["app_tokens"]  # the one repository, what a dispatch needs only
    assert (token["repositories"], token["permissions"]) == (
        [REPO], {"actions": "write", "contents": "read", "pull_requests": "read", "issues": "write"},
    )  # fmt: skip
    assert dispatch["inputs"] == {
        "ref": "feature", "provider": "anthropic", "model": "claude-unlisted-9", "roles": "critic=none",
        "max-usd": "0.5", "max-tokens": "40000", "model-prices": "claude-unlisted-9=2,10",
    }  # fmt: skip
    assert server_key not in json.dumps(bot_world.fake.requests()) + bot.output()
    assert bot.terminate() == 0

    # a workflow copied before it declared them: refused by GitHub, and said so, never dispatched
    # without the model
    old = bot_world.start("--executor", "actions", "--workers", "1", "--workflow", "old-heal.yml", *model,
                          env={"ANTHROPIC_API_KEY": server_key})  # fmt: skip
    assert old.deliver("workflow_run", red("green", bot_world.shas["green"])).status == 202
    [failed] = [job for job in old.wait_jobs("failed", 1, timeout=30) if job["status"] == "failed"]
    assert failed["error"].startswith(
        "GitHubError: acme/widgets's old-heal.yml does not take the inputs the server forwards (max-tokens, "
        "max-usd, model, model-prices, provider, ref, roles): Unexpected inputs provided"
    )
    assert "Update it from selfheal's heal.yml" in failed["error"]
    assert len(bot_world.repo_state()["dispatches"]) == 1
    assert old.terminate() == 0
