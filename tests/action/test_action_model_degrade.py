"""When the model cannot go on (its dollar budget spent, the API overloaded past the SDK's retries,
an error that echoes the key) the search's repair still ships, the comment says why, the status is
the heal's, and the key appears nowhere. The intervals world: a bug the search fixes."""

from __future__ import annotations

import json
import subprocess

from tests.action.conftest import REPO, World, all_text_under
from tests.action.test_action_e2e import comments_on, pulls_by_head
from tests.bot import payloads
from tests.fakes.anthropic_server import FakeAnthropic, error, message, ok, overloaded, text

KEY = "k3y-" + "5" * 40  # no known key shape: only the value-based scrubbing can mask it


def heal_with_claude(world: World, steps: list[dict], **inputs: str):
    fake = FakeAnthropic.start(world.tmp / "claude", {"api_key": KEY, "steps": steps})
    world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")
    try:
        run = world.run(
            "issue_comment", payloads.issue_comment("/heal", number=7, comment_id=5001),
            env={"ANTHROPIC_BASE_URL": fake.url}, **{"ANTHROPIC-API-KEY": KEY, **inputs},
        )  # fmt: skip
        return run, fake.requests()
    finally:
        fake.stop()


def test_a_spent_dollar_budget_stops_the_model_and_the_search_repair_ships(world: World) -> None:
    costly = ok(message(text('{"imports": [], "tests": []}'), input_tokens=10_000, output_tokens=10))
    run, requests = heal_with_claude(world, [costly, costly], **{"MAX-USD": "0.01"})

    assert run.returncode == 0, run.stderr
    assert len(requests) == 1  # the first answer cost $0.0201: no second call
    assert run.outputs["status"] == "healed"
    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report["fixes"][0]["strategy"] == "search"
    assert report["model"]["stopped_because"] == "model stopped: budget of $0.01 spent ($0.0201 used)"
    [progress] = comments_on(world, 7)
    assert "The model stopped early (budget of $0.01 spent ($0.0201 used)); the pull request carries the " \
           "search's repair." in progress["body"]  # fmt: skip
    [pull] = pulls_by_head(world, run.outputs["branch"])
    assert "**The model stopped early:** model stopped: budget of $0.01 spent" in pull["body"]
    assert run.outputs["cost-usd"] == "0.0201"


def test_an_overloaded_api_after_the_sdks_retries_leaves_the_search_to_heal(world: World) -> None:
    run, requests = heal_with_claude(world, [overloaded(repeat=12)])

    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "healed"
    assert requests and {r["status"] for r in requests} == {529}
    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report["fixes"][0]["strategy"] == "search"
    assert report["model"]["stopped_because"].startswith(
        "model stopped: anthropic: HTTP 529 overloaded_error"
    )
    assert "The model stopped early (anthropic: HTTP 529 overloaded_error" in comments_on(world, 7)[0]["body"]


def test_the_key_is_nowhere_even_when_the_provider_echoes_it_in_an_error_body(world: World) -> None:
    echo = error(500, "api_error", f"upstream rejected credentials {KEY} for this org", repeat=12)
    run, requests = heal_with_claude(world, [echo])

    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "healed"
    assert requests and all(r["key_ok"] for r in requests)  # the key did reach the API, in its header
    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert "upstream rejected credentials [redacted] for this org" in report["model"]["stopped_because"]
    places = {
        "stdout": run.stdout,
        "stderr": run.stderr,
        "outputs": json.dumps(run.outputs),
        "job summary": run.summary,
        "workspace and report folder": all_text_under(run.workspace),
        "runner temp": all_text_under(run.workspace.parent / "runner_temp"),
        "GitHub (comments, pull requests, requests)": json.dumps(world.state()),
        "model request bodies": json.dumps([r["body"] for r in requests]),
        "git objects": subprocess.run(
            ["git", "--git-dir", str(world.remote), "log", "--all", "-p", "--format=%B"],
            capture_output=True, text=True, check=True,
        ).stdout,
    }  # fmt: skip
    assert {where: text.count(KEY) for where, text in places.items()} == dict.fromkeys(places, 0)
    assert len(places["git objects"]) > 1000 and places["GitHub (comments, pull requests, requests)"]


def test_a_fork_is_refused_a_model_even_with_a_key_configured(world: World) -> None:
    world.fake.seed_comment(REPO, 8, 6002, "alice", "/heal")
    fake = FakeAnthropic.start(world.tmp / "claude", {"api_key": KEY, "steps": []})
    try:
        run = world.run(
            "issue_comment", payloads.issue_comment("/heal", number=8, comment_id=6002),
            env={"ANTHROPIC_BASE_URL": fake.url}, **{"ANTHROPIC-API-KEY": KEY},
        )  # fmt: skip
        fork_run = world.run(
            "workflow_run",
            payloads.workflow_run(conclusion="failure", head_sha=world.shas["feature"], head_branch="feature",
                                  head_repo="mallory/widgets"),
            env={"ANTHROPIC_BASE_URL": fake.url}, **{"ANTHROPIC-API-KEY": KEY},
        )  # fmt: skip
        requests = fake.requests()
    finally:
        fake.stop()
    assert (run.returncode, run.outputs["status"]) == (0, "refused")
    assert (fork_run.returncode, fork_run.outputs["status"]) == (0, "refused")
    assert requests == []
