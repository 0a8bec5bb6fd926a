"""The model loop on GitHub: `selfheal action` heals with Claude or Ollama (the fake servers,
driven through the real anthropic and ollama clients), with the key kept in selfheal's process."""

from __future__ import annotations

import json

from tests.action.conftest import REPO, World, all_text_under
from tests.action.model_world import (
    CONCLUSION,
    FIXED,
    MODEL_TESTS,
    anthropic_script,
    ollama_script,
)
from tests.action.test_action_e2e import comments_on, pulls_by_head, suite_passes_on
from tests.bot import payloads
from tests.conftest import git, report_errors
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.ollama_server import FakeOllama

KEY = "k3y-" + "7" * 40  # no known key shape: only the value-based scrubbing can mask it
UNLISTED = "claude-unlisted-9"  # a model with no price in selfheal's list


def test_a_model_without_a_price_is_refused_under_the_workflows_key(temps_world: World) -> None:
    # Counted as free, it would let every heal past max-usd: refused before any request, and the
    # requester reads how to price it. (The model's name can come from the workflow's input or
    # from the repository's [tool.selfheal.llm]: the same check.)
    world = temps_world
    fake = FakeAnthropic.start(world.tmp / "claude", {"api_key": KEY, "steps": anthropic_script()})
    try:
        run = world.run(
            "issue_comment", heal_comment(world), env={"ANTHROPIC_BASE_URL": fake.url},
            **{"ANTHROPIC-API-KEY": KEY, "ROLES": "memory=none", "MODEL": UNLISTED},
        )  # fmt: skip
        requests = fake.requests()
    finally:
        fake.stop()
    assert requests == []
    assert run.outputs["status"] == "error", run.stderr
    said = (
        f"model '{UNLISTED}' (critic) has no price, so no dollar budget could hold under the workflow's key"
    )
    assert said in run.summary
    assert f"--price {UNLISTED}=INPUT,OUTPUT" in run.summary and "model-prices" in run.summary
    assert [p for p in world.repo_state()["pulls"] if p["head"]["ref"].startswith("selfheal/")] == []


def heal_comment(world: World, number: int = 7, body: str = "/heal", comment_id: int = 5001, **inputs: str):
    world.fake.seed_comment(REPO, number, comment_id, "alice", body)
    payload = payloads.issue_comment(body, number=number, comment_id=comment_id)
    return payload


def test_heal_with_claude_opens_a_pull_request_with_the_models_patch_tests_and_cost(
    temps_world: World,
) -> None:
    world = temps_world
    fake = FakeAnthropic.start(world.tmp / "claude", {"api_key": KEY, "steps": anthropic_script()})
    try:
        run = world.run(
            "issue_comment", heal_comment(world), env={"ANTHROPIC_BASE_URL": fake.url},
            # a model selfheal's list does not price, priced by the workflow
            **{"ANTHROPIC-API-KEY": KEY, "ROLES": "memory=none", "MAX-MINUTES": "3",
               "MODEL": UNLISTED, "MODEL-PRICES": f"{UNLISTED}=2,10"},
        )  # fmt: skip
        requests = fake.requests()
    finally:
        fake.stop()

    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "healed", run.stderr
    assert [r["status"] for r in requests] == [200] * 7, [r["status"] for r in requests]
    assert {r["body"]["model"] for r in requests} == {UNLISTED}
    assert all(r["key_ok"] for r in requests)
    [pull] = pulls_by_head(world, run.outputs["branch"])
    diff = git(
        world.tmp, "--git-dir", str(world.remote), "diff", world.shas["feature"], run.outputs["branch"]
    )
    assert "+" + FIXED.rstrip() in diff.splitlines()
    changed = git(world.tmp, "--git-dir", str(world.remote), "diff", "--name-only", world.shas["feature"],
                  run.outputs["branch"]).split()  # fmt: skip
    assert changed == [MODEL_TESTS, "temps/convert.py"] or changed == ["temps/convert.py", MODEL_TESTS]
    assert suite_passes_on(world, run.outputs["branch"]).returncode == 0

    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report_errors(report) == []
    assert report["fixes"][0]["strategy"] == "generator"
    assert report["diagnosis"]["root_cause"] == CONCLUSION["root_cause"]
    shipped = {t["name"]: (t["kind"], t["origin"]) for t in report["new_tests"] if t["origin"] != "embedded"}
    assert shipped == {
        "test_minus_forty_is_the_same_on_both_scales": ("fail_to_pass", "spec_tests"),
        "test_ten_below_zero": ("fail_to_pass", "qa_adversarial"),
    }
    model = report["model"]
    assert model["critic"] == {
        "decision": "accept", "reason": "adds the missing offset; nothing else changes", "concerns": []
    }  # fmt: skip
    assert [c["tool"] for c in model["tool_calls"]] == ["run_snippet"]
    assert model["usage"]["total"] == {"calls": 7, "tokens_in": 8000, "tokens_out": 610,
                                       "cost_usd": round((8000 * 2 + 610 * 10) / 1e6, 6)}  # fmt: skip

    # the pull request: the diagnosis, the evidence, the model's tests with their proof, the critic, the cost
    body = pull["body"]
    assert CONCLUSION["root_cause"] in body
    assert "`run_snippet`" in body and CONCLUSION["evidence"][0] in body
    row = f"| `{MODEL_TESTS}::test_ten_below_zero` | ❌ failed | ✅ passed | fail → pass |"
    assert row in body
    assert "**Critic:** accepted the patch" in body
    assert "| **total** | 7 | 8000 | 610 | $0.0221 |" in body
    # the job summary and the step's outputs carry the same
    assert "| **total** | 7 | 8000 | 610 | $0.0221 |" in run.summary
    assert (run.outputs["provider"], run.outputs["tokens-in"], run.outputs["tokens-out"]) == (
        "anthropic", "8000", "610")  # fmt: skip
    assert run.outputs["cost-usd"] == "0.0221"
    assert KEY not in run.stdout + run.stderr + run.summary + json.dumps(run.outputs)
    assert KEY not in all_text_under(run.workspace) + json.dumps(world.state())
    # the folder the workflow uploads (report-path) holds what each role was told and answered,
    # and report.html, linked from the job summary, shows it per role with its tokens and cost
    calls = [json.loads(line) for line in (run.report_dir / "conversation.jsonl").read_text().splitlines()]
    assert {c["role"] for c in calls} >= {"debugger", "generator", "critic"}
    assert sum(c["tokens_in"] for c in calls) == 8000
    html = (run.report_dir / "report.html").read_text(encoding="utf-8")
    said = [
        t["text"] for c in calls if c["role"] == "debugger" for t in c["turns"] if t["kind"] == "assistant"
    ]
    assert any('"root_cause"' in text for text in said)  # the debugger's conclusion
    assert '<details class="role"><summary>debugger — ' in html
    assert "report.html" in run.summary


def test_heal_with_ollama_opens_a_pull_request_with_the_models_patch(temps_world: World) -> None:
    world = temps_world
    fake = FakeOllama.start(world.tmp / "ollama", ollama_script())
    try:
        run = world.run(
            "issue_comment", heal_comment(world),
            **{"OLLAMA-HOST": fake.url, "ROLES": "memory=none", "MAX-MINUTES": "3"},
        )  # fmt: skip
        requests = fake.requests()
    finally:
        fake.stop()
    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "healed", run.stderr
    assert [r["status"] for r in requests] == [200] * 7
    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert (report["provider"], report["fixes"][0]["strategy"]) == ("ollama", "generator")
    [pull] = pulls_by_head(world, run.outputs["branch"])
    assert "| **total** | 7 | 5200 | 460 | $0.0000 |" in pull["body"]
    assert (run.outputs["provider"], run.outputs["tokens-in"], run.outputs["cost-usd"]) == (
        "ollama",
        "5200",
        "0.0000",
    )
    assert comments_on(world, 7)[0]["body"].count("Pull request opened") == 1


def test_no_provider_and_no_key_heals_with_the_search_alone_and_calls_no_model(temps_world: World) -> None:
    world = temps_world
    fake = FakeAnthropic.start(world.tmp / "claude", {"api_key": KEY, "steps": anthropic_script()})
    try:
        run = world.run("issue_comment", heal_comment(world), env={"ANTHROPIC_BASE_URL": fake.url},
                        **{"MAX-MINUTES": "1"})  # fmt: skip
        requests = fake.requests()
    finally:
        fake.stop()
    assert run.returncode == 0, run.stderr
    assert requests == []
    assert (run.outputs["status"], run.outputs["provider"], run.outputs["tokens-in"]) == (
        "not_healed",
        "none",
        "0",
    )
    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report["model"] is None


def test_a_patch_the_critic_sent_back_and_nothing_replaced_opens_a_draft(temps_world: World) -> None:
    from tests.fakes.anthropic_server import message, ok, text

    world = temps_world
    send_back = {"decision": "send_back", "reason": "32 is hard-coded", "concerns": ["name the offset"]}
    no_match = (
        "temps/convert.py\n<<<<<<< SEARCH\n    return nothing\n=======\n    return 1\n>>>>>>> REPLACE\n"
    )
    critic = ok(message(text(json.dumps(send_back)), input_tokens=700, output_tokens=40))
    steps = [
        *anthropic_script()[:-1],
        critic,
        ok(message(text(no_match), input_tokens=900, output_tokens=40)),
    ]
    fake = FakeAnthropic.start(world.tmp / "claude", {"api_key": KEY, "steps": steps})
    try:
        run = world.run(
            "issue_comment", heal_comment(world), env={"ANTHROPIC_BASE_URL": fake.url},
            **{"ANTHROPIC-API-KEY": KEY, "ROLES": "memory=none", "MAX-MINUTES": "3"},
        )  # fmt: skip
    finally:
        fake.stop()
    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "healed"
    [pull] = pulls_by_head(world, run.outputs["branch"])
    assert pull["draft"] is True
    assert "**Critic:** sent the patch back: 32 is hard-coded" in pull["body"]
    assert "- concern: name the offset" in pull["body"]
