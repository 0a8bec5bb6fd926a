"""A whole heal where the repair is the model's: search disabled, scripted debugger and generator
answers, real sandbox, real screening, the same verdict."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.llm import Reply, ScriptedModel, ToolCall, Usage
from selfheal.agent.loop import heal
from selfheal.agent.modelloop import ModelSetup
from selfheal.agent.report import build_report
from selfheal.sandbox import LocalSandbox
from tests.conftest import EXAMPLES, apply_and_test, git

BUGGY = "        if merged and current.start < merged[-1].end:\n"
FIXED = "        if merged and current.start <= merged[-1].end:\n"
CONCLUSION = {
    "root_cause": "merge() only merges intervals that overlap strictly; touching closed intervals such as "
    "[1, 3] and [3, 5] share a point but stay apart because the comparison is `<`.",
    "location": {"file": "intervals/core.py", "line": 33, "function": "merge"},
    "confidence": 0.9,
    "strategy": "Merge when the next interval starts at or before the end of the last one.",
    "evidence": ["merge([Interval(1, 3), Interval(3, 5)]) returned two intervals"],
}


def intervals_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "intervals"
    shutil.copytree(EXAMPLES / "intervals", repo, ignore=shutil.ignore_patterns(".selfheal", "__pycache__"))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "example")
    return repo


def test_the_model_diagnoses_with_tools_and_its_edit_heals(tmp_path: Path) -> None:
    debugger = ScriptedModel([
        Reply("", tool_calls=(ToolCall("toolu_1", "run_snippet", {
            "code": "from intervals.core import Interval, merge\n"
                    "print(merge([Interval(1, 3), Interval(3, 5)]))"}),), usage=Usage(900, 60)),
        Reply(json.dumps(CONCLUSION), usage=Usage(1400, 120)),
    ])  # fmt: skip
    generator = ScriptedModel([
        # first answer: SEARCH text that is not in the file -> fed back with the nearest lines
        Reply("Merge touching intervals.\n\nintervals/core.py\n<<<<<<< SEARCH\n"
              "        if current.start < merged[-1].end:\n=======\n"
              "        if current.start <= merged[-1].end:\n>>>>>>> REPLACE\n", usage=Usage(1000, 80)),
        Reply("Merge touching intervals: compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n"
              + BUGGY + "=======\n" + FIXED + ">>>>>>> REPLACE\n", usage=Usage(1100, 70)),
    ])  # fmt: skip
    repo = intervals_repo(tmp_path)
    trace = Trace()
    setup = ModelSetup(debugger=debugger, generator=generator, search_share=0.0)
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)

    assert result.status == "healed", result.error
    assert [r.holds for r in result.verdict.rules] == [True] * 5
    [fix] = result.fixes
    assert (fix.strategy, fix.file, fix.function) == ("generator", "intervals/core.py", "merge")
    changed = [ln for ln in result.patch.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert changed == [f"-{BUGGY.rstrip()}", f"+{FIXED.rstrip()}"]
    assert apply_and_test(repo, result.patch, tmp_path).returncode == 0
    assert result.metrics.candidates_tried == 2  # no search candidate: only the model's two answers

    # the generator saw why its first answer did not apply
    feedback = generator.calls[1]["messages"][-1].content
    assert "Your edits were not applied" in feedback and "intervals/core.py" in feedback
    # the debugger observed the real output of its snippet
    observed = debugger.calls[1]["messages"][-1].content
    assert "Interval(start=1, end=3), Interval(start=3, end=5)" in observed

    report = build_report(result)
    assert report["diagnosis"]["root_cause"] == CONCLUSION["root_cause"]
    assert report["diagnosis"]["location"] == "intervals/core.py:33"
    assert (report["metrics"]["tokens_in"], report["metrics"]["tokens_out"]) == (4400, 330)
    nodes = {e.node: e.data for e in trace.events}
    assert (nodes["debugger"]["steps"], nodes["debugger"]["tool_calls"], nodes["debugger"]["degraded"]) == (
        2, 1, False,
    )  # fmt: skip
    assert (nodes["generator"]["answers"], nodes["generator"]["not_applied"]) == (2, 1)


def test_an_unsure_diagnosis_widens_the_search_instead(tmp_path: Path) -> None:
    unsure = {**CONCLUSION, "confidence": 0.2}
    debugger = ScriptedModel([Reply(json.dumps(unsure))])
    generator = ScriptedModel([])  # never asked: the search finds the fix
    repo = intervals_repo(tmp_path)
    setup = ModelSetup(debugger=debugger, generator=generator, search_share=0.0)
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), Trace(), model=setup)
    assert result.status == "healed"
    assert result.fixes[0].strategy == "search"
    assert generator.calls == []


# -- through the real anthropic SDK, against the fake Messages API ------------------------------
def test_a_heal_with_claude_over_the_real_sdk(tmp_path: Path) -> None:
    from dataclasses import replace

    from selfheal.agent.modelloop import setup_for
    from tests.fakes.anthropic_server import FakeAnthropic, message, ok, text, tool_use

    edit = "Merge touching intervals.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n"
    edit += FIXED + ">>>>>>> REPLACE\n"
    snippet = "from intervals.core import Interval, merge\nprint(merge([Interval(1, 3), Interval(3, 5)]))"
    fake = FakeAnthropic.start(tmp_path / "fake", [
        ok(message(text("Check what merge does with touching intervals."),
                   tool_use("toolu_01", "run_snippet", {"code": snippet}),
                   input_tokens=1500, output_tokens=90)),
        ok(message(text(json.dumps(CONCLUSION)), input_tokens=1900, output_tokens=150)),
        ok(message(text(edit), input_tokens=1200, output_tokens=80)),
    ])  # fmt: skip
    try:
        env = {"ANTHROPIC_API_KEY": fake.api_key, "ANTHROPIC_BASE_URL": fake.url}
        setup = replace(setup_for("anthropic", env), search_share=0.0)
        repo = intervals_repo(tmp_path)
        result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), Trace(), model=setup)
        requests = fake.requests()
    finally:
        fake.stop()

    assert result.status == "healed", result.error
    assert result.fixes[0].strategy == "generator"
    assert (result.metrics.tokens_in, result.metrics.tokens_out) == (4600, 320)
    assert result.model_diagnosis is not None and result.model_diagnosis.line == 33
    assert [r["status"] for r in requests] == [200, 200, 200]
    assert all(r["key_ok"] for r in requests)
    second = requests[1]["body"]["messages"]
    # the tool result went back as the API wants it: a tool_result block answering toolu_01
    result_block = second[-1]["content"][0]
    assert (result_block["type"], result_block["tool_use_id"]) == ("tool_result", "toolu_01")
    assert "Interval(start=1, end=3), Interval(start=3, end=5)" in json.dumps(result_block["content"])
    assert [t["name"] for t in requests[0]["body"]["tools"]][:2] == ["run_snippet", "run_tests"]
    assert "tools" not in requests[2]["body"] or not requests[2]["body"]["tools"]


def test_malformed_answers_are_counted_and_the_search_takes_over(tmp_path: Path) -> None:
    """Every kind of bad answer, none of them fatal: an unknown tool, bad tool arguments, an
    empty answer, invalid JSON; then edits to a test file and to CI, a 200k-character answer, and
    an edit that matches nothing. The heal still ends healed, by the search."""
    debugger = ScriptedModel([
        Reply("", tool_calls=(ToolCall("t1", "delete_everything", {}),)),
        Reply("", tool_calls=(ToolCall("t2", "read_file", {"path": 42}),)),
        Reply(json.dumps(CONCLUSION).replace('"confidence": 0.9', '"confidence": "high"')[:-40]),
        Reply(json.dumps(CONCLUSION)),
    ])  # fmt: skip
    generator = ScriptedModel([
        Reply("Make the test agree.\n\ntests/test_merge.py\n<<<<<<< SEARCH\n"
              "def test_touching_intervals_merge():\n=======\ndef _skipped():\n>>>>>>> REPLACE\n"),
        Reply("x" * 200_000),
        Reply(".github/workflows/ci.yml\n<<<<<<< SEARCH\nname: CI\n=======\nname: green\n>>>>>>> REPLACE\n"),
    ])  # fmt: skip
    repo = intervals_repo(tmp_path)
    trace = Trace()
    setup = ModelSetup(debugger=debugger, generator=generator, search_share=0.0)
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)

    assert result.status == "healed"
    assert result.fixes[0].strategy == "search"
    assert not any("tests/" in f or ".github" in f for f in result.files_changed)
    tool_errors = [m.content for m in debugger.calls[2]["messages"] if m.role == "tool"]
    assert tool_errors[0].startswith("unknown tool `delete_everything`")
    assert "path" in tool_errors[1]
    nodes = {e.node: e.data for e in trace.events}
    assert nodes["debugger"]["degraded"] is False and nodes["debugger"]["steps"] == 4
    assert (nodes["generator"]["answers"], nodes["generator"]["not_applied"]) == (3, 3)
    problems = " ".join(str(p) for p in generator.calls[1]["messages"][-1:])
    assert "tests/test_merge.py" in problems and "protected" in problems


def test_a_spent_token_budget_stops_the_model_and_the_search_finishes(tmp_path: Path) -> None:
    debugger = ScriptedModel([
        Reply("", tool_calls=(ToolCall("t1", "localization", {}),), usage=Usage(5000, 200)),
        Reply(json.dumps(CONCLUSION), usage=Usage(100, 10)),  # never asked: over budget
    ])  # fmt: skip
    generator = ScriptedModel([])
    repo = intervals_repo(tmp_path)
    setup = ModelSetup(debugger=debugger, generator=generator, search_share=0.0, token_budget=4000)
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), Trace(), model=setup)
    assert result.status == "healed" and result.fixes[0].strategy == "search"
    assert len(debugger.calls) == 1 and generator.calls == []
    assert result.metrics.tokens_in == 5000
    assert build_report(result)["metrics"]["tokens_out"] == 200


def test_an_overloaded_api_hands_over_to_the_search(tmp_path: Path) -> None:
    from dataclasses import replace

    from selfheal.agent.modelloop import ModelStrategy, setup_for
    from tests.fakes.anthropic_server import FakeAnthropic, overloaded

    fake = FakeAnthropic.start(tmp_path / "fake", [overloaded(repeat=5)])
    try:
        env = {"ANTHROPIC_API_KEY": fake.api_key, "ANTHROPIC_BASE_URL": fake.url}
        setup = replace(setup_for("anthropic", env), search_share=0.0)
        repo = intervals_repo(tmp_path)
        trace = Trace()
        result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)
        requests = fake.requests()
    finally:
        fake.stop()
    assert result.status == "healed" and result.fixes[0].strategy == "search"
    assert [r["status"] for r in requests] == [529, 529, 529]  # the SDK's own retries, then we moved on
    repair = [e.data for e in trace.events if e.node == "repair"]
    assert repair[0]["stopped"].startswith("model stopped: anthropic: HTTP 529 overloaded_error")
    assert ModelStrategy.__name__ == "ModelStrategy"


def test_a_heal_with_ollama_over_the_real_sdk(tmp_path: Path) -> None:
    from dataclasses import replace

    from selfheal.agent.events import describe_finished
    from selfheal.agent.modelloop import setup_for
    from tests.fakes.ollama_server import FakeOllama, chat, ok, tool_call

    snippet = "from intervals.core import Interval, merge\nprint(merge([Interval(1, 3), Interval(3, 5)]))"
    edit = (
        "Compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n"
        + BUGGY
        + "=======\n"
        + FIXED
        + ">>>>>>> REPLACE\n"
    )
    fake = FakeOllama.start(tmp_path / "fake", [
        ok(chat(tool_calls=[tool_call("run_snippet", {"code": snippet})],
                prompt_eval_count=800, eval_count=40)),
        ok(chat(json.dumps(CONCLUSION), prompt_eval_count=1000, eval_count=120)),
        ok(chat(edit, prompt_eval_count=700, eval_count=60)),
    ])  # fmt: skip
    try:
        setup = replace(setup_for("ollama", {"OLLAMA_HOST": fake.url}), search_share=0.0)
        repo = intervals_repo(tmp_path)
        trace = Trace()
        result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)
        requests = fake.requests()
    finally:
        fake.stop()

    assert result.status == "healed", result.error
    assert result.fixes[0].strategy == "generator"
    assert (result.metrics.tokens_in, result.metrics.tokens_out, result.metrics.cost_usd) == (2500, 220, 0.0)
    tool_turn = requests[1]["body"]["messages"][-1]
    assert tool_turn["role"] == "tool" and "Interval(start=3, end=5)" in tool_turn["content"]
    events = {e.node: e for e in trace.events}
    assert events["debugger"].data["prompt"]["role"] == "debugger"
    assert len(events["generator"].data["prompt"]["hash"]) == 12
    assert (
        describe_finished(events["debugger"])
        == "debugger: 2 steps, 1 tool calls, concluded (1800+160 tokens)"
    )
