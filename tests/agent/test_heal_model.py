"""A whole heal where the repair is the model's: search disabled, scripted debugger and generator
answers, real sandbox, real screening, the same verdict."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import ProviderSettings, Reply, ScriptedModel, ToolCall, Usage
from selfheal.agent.model.strategy import ModelSetup
from selfheal.agent.report.reportjson import build_report
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

# setup_for gives every role the configured model; tests scripted for the repair alone switch off
# the search and the other roles (test writers, critic, memory), which would take scripted answers
REPAIR_ONLY = dict(
    search_share=0.0, spec_tests=None, qa_adversarial=None, critic=None, judge=None, memory=None, parallel=1
)


# what the scripted spec and adversarial answers below prove on the intervals example
SHIPPED_MODEL_TESTS = {
    "test_shared_point_counts_once": ("fail_to_pass", "spec_tests"),
    "test_touching_intervals_merge": ("fail_to_pass", "spec_tests"),
    "test_empty_input_gives_empty_list": ("guard", "spec_tests"),
    "test_three_touching_chain": ("fail_to_pass", "qa_adversarial"),
}


def model_tests_shipped(result) -> dict[str, tuple[str, str]]:
    """The model's tests in the report: name -> (kind, origin)."""
    shipped = build_report(result)["new_tests"]
    return {t["name"]: (t["kind"], t["origin"]) for t in shipped if t["origin"] != "embedded"}


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
    # the heal's probability that the patch is right, not the debugger's own confidence
    assert report["diagnosis"]["confidence"] == report["confidence"]["probability"]
    assert report["confidence"]["features"]["family_prior"] is None  # a model's edit: no search family
    # the code a repair may change: the package's three files, not the tests
    assert report["confidence"]["features"]["source_lines"] == 25 + 6 + 43
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

    from selfheal.agent.model.strategy import setup_for
    from tests.fakes.anthropic_server import FakeAnthropic, message, ok, text, tool_use

    edit = "Merge touching intervals.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n"
    edit += FIXED + ">>>>>>> REPLACE\n"
    snippet = "from intervals.core import Interval, merge\nprint(merge([Interval(1, 3), Interval(3, 5)]))"
    adversarial = {**ADVERSARIAL_TESTS, "tests": ADVERSARIAL_TESTS["tests"][:1]}
    fake = FakeAnthropic.start(tmp_path / "fake", [
        # spec-blind tests first, for the two functions the failing tests call
        ok(message(text(json.dumps(SPEC_TOTAL_LENGTH)), input_tokens=600, output_tokens=70)),
        ok(message(text(json.dumps(SPEC_TESTS)), input_tokens=650, output_tokens=160)),
        ok(message(text("Check what merge does with touching intervals."),
                   tool_use("toolu_01", "run_snippet", {"code": snippet}),
                   input_tokens=1500, output_tokens=90)),
        ok(message(text(json.dumps(CONCLUSION)), input_tokens=1900, output_tokens=150)),
        ok(message(text(edit), input_tokens=1200, output_tokens=80)),
        # adversarial tests aimed at the fixed merge()
        ok(message(text(json.dumps(adversarial)), input_tokens=900, output_tokens=100)),
    ])  # fmt: skip
    try:
        env = {"ANTHROPIC_API_KEY": fake.api_key, "ANTHROPIC_BASE_URL": fake.url}
        setup = replace(
            setup_for(ProviderSettings(provider="anthropic"), env),
            search_share=0.0, critic=None, judge=None, memory=None, parallel=1,
        )  # fmt: skip
        repo = intervals_repo(tmp_path)
        result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), Trace(), model=setup)
        requests = fake.requests()
    finally:
        fake.stop()

    assert result.status == "healed", result.error
    assert result.fixes[0].strategy == "generator"
    assert (result.metrics.tokens_in, result.metrics.tokens_out) == (6750, 650)
    assert result.model_diagnosis is not None and result.model_diagnosis.line == 33
    assert [r["status"] for r in requests] == [200] * 6
    assert all(r["key_ok"] for r in requests)
    # the model's tests ship with their proof: each failed on the base code and passes on the fix
    assert model_tests_shipped(result) == SHIPPED_MODEL_TESTS
    # structured answers were asked for with the role's JSON schema
    assert requests[0]["body"]["output_config"]["format"]["schema"]["required"] == ["imports", "tests"]
    requests = requests[2:]  # the debugger's and the generator's turns
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

    from selfheal.agent.model.strategy import ModelStrategy, setup_for
    from tests.fakes.anthropic_server import FakeAnthropic, overloaded

    fake = FakeAnthropic.start(tmp_path / "fake", [overloaded(repeat=5)])
    try:
        env = {"ANTHROPIC_API_KEY": fake.api_key, "ANTHROPIC_BASE_URL": fake.url}
        setup = replace(setup_for(ProviderSettings(provider="anthropic"), env), **REPAIR_ONLY)
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
    from selfheal.agent.model.strategy import setup_for
    from tests.fakes.ollama_server import FakeOllama, chat, ok, tool_call

    snippet = "from intervals.core import Interval, merge\nprint(merge([Interval(1, 3), Interval(3, 5)]))"
    edit = (
        "Compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n"
        + BUGGY
        + "=======\n"
        + FIXED
        + ">>>>>>> REPLACE\n"
    )
    adversarial = {**ADVERSARIAL_TESTS, "tests": ADVERSARIAL_TESTS["tests"][:1]}
    fake = FakeOllama.start(tmp_path / "fake", [
        ok(chat(json.dumps(SPEC_TOTAL_LENGTH), prompt_eval_count=500, eval_count=60)),
        ok(chat(json.dumps(SPEC_TESTS), prompt_eval_count=520, eval_count=150)),
        ok(chat(tool_calls=[tool_call("run_snippet", {"code": snippet})],
                prompt_eval_count=800, eval_count=40)),
        ok(chat(json.dumps(CONCLUSION), prompt_eval_count=1000, eval_count=120)),
        ok(chat(edit, prompt_eval_count=700, eval_count=60)),
        ok(chat(json.dumps(adversarial), prompt_eval_count=900, eval_count=90)),
    ])  # fmt: skip
    try:
        ollama = setup_for(ProviderSettings(provider="ollama"), {"OLLAMA_HOST": fake.url})
        setup = replace(ollama, search_share=0.0, critic=None, judge=None, memory=None, parallel=1)
        repo = intervals_repo(tmp_path)
        trace = Trace()
        result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)
        requests = fake.requests()
    finally:
        fake.stop()

    assert result.status == "healed", result.error
    assert result.fixes[0].strategy == "generator"
    assert (result.metrics.tokens_in, result.metrics.tokens_out, result.metrics.cost_usd) == (4420, 520, 0.0)
    assert model_tests_shipped(result) == SHIPPED_MODEL_TESTS
    assert requests[0]["body"]["format"]["required"] == ["imports", "tests"]  # the role's schema
    requests = requests[2:]
    tool_turn = requests[1]["body"]["messages"][-1]
    assert tool_turn["role"] == "tool" and "Interval(start=3, end=5)" in tool_turn["content"]
    events = {e.node: e for e in trace.events}
    assert events["debugger"].data["prompt"]["role"] == "debugger"
    assert len(events["generator"].data["prompt"]["hash"]) == 12
    assert (
        describe_finished(events["debugger"]) == "debugger: 2 steps, 1 tool call, concluded (1800+160 tokens)"
    )


def test_claude_debugs_and_a_local_ollama_model_generates(tmp_path: Path, monkeypatch) -> None:
    """Per-role settings as the command line gives them: the debugger on the main provider
    (Claude, fake Messages API), the generator on Ollama (fake chat API), one heal."""
    from dataclasses import replace

    from selfheal.agent.model.strategy import setup_for
    from tests.fakes.anthropic_server import FakeAnthropic, message, text, tool_use
    from tests.fakes.anthropic_server import ok as claude_ok
    from tests.fakes.ollama_server import FakeOllama, chat
    from tests.fakes.ollama_server import ok as ollama_ok

    snippet = "from intervals.core import Interval, merge\nprint(merge([Interval(1, 3), Interval(3, 5)]))"
    edit = "Compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + FIXED
    edit += ">>>>>>> REPLACE\n"
    claude = FakeAnthropic.start(tmp_path / "claude", [
        claude_ok(message(tool_use("toolu_01", "run_snippet", {"code": snippet}),
                          input_tokens=1500, output_tokens=90)),
        claude_ok(message(text(json.dumps(CONCLUSION)), input_tokens=1900, output_tokens=150)),
    ])  # fmt: skip
    # the fake knows only this model: any other name would be a 404, as from a real Ollama
    ollama = FakeOllama.start(tmp_path / "ollama", {
        "models": ["qwen2.5-coder:7b"],
        "steps": [ollama_ok(chat(edit, model="qwen2.5-coder:7b", prompt_eval_count=700, eval_count=60))],
    })  # fmt: skip
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", claude.api_key or "")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", claude.url)
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)
        repo = intervals_repo(tmp_path)
        config = build_config(repo, {
            "python": sys.executable, "provider": "anthropic",
            "roles": ["generator=ollama:qwen2.5-coder:7b"],
        })  # fmt: skip
        model = setup_for(config.llm)
        assert model is not None
        result = heal(config, LocalSandbox(), Trace(), model=replace(model, **REPAIR_ONLY))
        to_claude, to_ollama = claude.requests(), ollama.requests()
    finally:
        claude.stop()
        ollama.stop()

    assert result.status == "healed", result.error
    assert result.fixes[0].strategy == "generator"
    assert [r["body"]["model"] for r in to_claude] == ["claude-sonnet-5-5"] * 2
    assert [(r["status"], r["body"]["model"]) for r in to_ollama] == [(200, "qwen2.5-coder:7b")]
    assert "Merge when the next interval starts at or before" in json.dumps(to_ollama[0]["body"]["messages"])
    assert (result.metrics.tokens_in, result.metrics.tokens_out) == (4100, 300)
    # the other roles follow the main provider: one client shared with the debugger
    assert model.critic is model.debugger and model.memory is model.debugger
    assert model.generator is not model.debugger


def test_a_heal_with_a_gguf_model_in_process(tmp_path: Path) -> None:
    """The llamacpp provider end to end, with a scripted `Llama` in place of llama-cpp-python's:
    tools emulated in the prompt, the debugger's JSON answers, the generator's edit blocks."""
    from selfheal.agent.events import describe_finished
    from selfheal.agent.model.llm import LlamaOutput, ProviderSettings, ScriptedLlama
    from selfheal.agent.model.llm.llamacpp_provider import LlamaCppProvider

    snippet = "from intervals.core import Interval, merge\nprint(merge([Interval(1, 3), Interval(3, 5)]))"
    edit = "Compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + FIXED
    edit += ">>>>>>> REPLACE\n"
    call = {"tool_calls": [{"name": "run_snippet", "arguments": {"code": snippet}}]}
    adversarial = {**ADVERSARIAL_TESTS, "tests": ADVERSARIAL_TESTS["tests"][:1]}
    llama = ScriptedLlama([
        LlamaOutput(json.dumps(SPEC_TOTAL_LENGTH), prompt_tokens=500, completion_tokens=60),
        LlamaOutput(json.dumps(SPEC_TESTS), prompt_tokens=520, completion_tokens=150),
        LlamaOutput(json.dumps(call), prompt_tokens=900, completion_tokens=45),
        LlamaOutput(json.dumps({"answer": CONCLUSION}), prompt_tokens=1300, completion_tokens=150),
        LlamaOutput(edit, prompt_tokens=700, completion_tokens=60),
        LlamaOutput(json.dumps(adversarial), prompt_tokens=900, completion_tokens=90),
    ])  # fmt: skip
    settings = ProviderSettings(provider="llamacpp", model="/models/qwen2.5-coder-7b.Q4_K_M.gguf")
    provider = LlamaCppProvider(settings.resolve(env={}), settings, llama=llama)
    repo = intervals_repo(tmp_path)
    trace = Trace()
    setup = ModelSetup(
        debugger=provider, generator=provider, spec_tests=provider, qa_adversarial=provider, search_share=0.0
    )
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)

    assert result.status == "healed", result.error
    assert [r.holds for r in result.verdict.rules] == [True] * 5
    assert result.fixes[0].strategy == "generator"
    changed = [ln for ln in result.patch.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert changed == [f"-{BUGGY.rstrip()}", f"+{FIXED.rstrip()}"]
    assert apply_and_test(repo, result.patch, tmp_path).returncode == 0
    assert (result.metrics.tokens_in, result.metrics.tokens_out, result.metrics.cost_usd) == (4820, 555, 0.0)
    assert result.model_diagnosis is not None and result.model_diagnosis.line == 33
    assert model_tests_shipped(result) == SHIPPED_MODEL_TESTS
    spec_call = llama.calls[0]
    assert spec_call["response_format"]["type"] == "json_object"  # a structured answer

    first, second, third = llama.calls[2:5]
    # the debugger: tools described in the system turn, none passed natively, JSON mode (the union
    # grammar of seven tools crashed llama.cpp), the answer size from the setup
    assert "tools" not in first and first["max_tokens"] == 2048
    assert first["response_format"] == {"type": "json_object"}
    system = first["messages"][0]
    assert system["role"] == "system" and "To call tools:" in system["content"]
    assert "- run_snippet:" in system["content"] and "- read_file:" in system["content"]
    # the tool call went back as an assistant turn, the snippet's real output as a user turn
    assert json.loads(second["messages"][-2]["content"]) == call
    result_turn = second["messages"][-1]
    assert result_turn["role"] == "user" and result_turn["content"].startswith("Result of run_snippet")
    assert "Interval(start=1, end=3), Interval(start=3, end=5)" in result_turn["content"]
    # the generator: free text, no tool contract, no grammar
    assert "response_format" not in third
    assert "To call tools:" not in json.dumps(third["messages"])
    assert "Merge when the next interval starts at or before" in json.dumps(third["messages"])

    events = {e.node: e for e in trace.events}
    assert describe_finished(events["debugger"]) == (
        "debugger: 2 steps, 1 tool call, concluded (2200+195 tokens)"
    )
    provider.close()
    assert not llama.closed  # handed in, so the caller's to close


# -- the model's tests: spec-blind first, adversarial after the fix, each proven -----------------
SPEC_TESTS = {
    "imports": ["from intervals.core import Interval, merge"],
    "tests": [
        {
            "name": "test_touching_intervals_merge",
            "source": "docstring",
            "code": "def test_touching_intervals_merge():\n"
            "    assert merge([Interval(1, 3), Interval(3, 5)]) == [Interval(1, 5)]\n",
        },
        {
            "name": "test_empty_input_gives_empty_list",
            "source": "property",
            "code": "def test_empty_input_gives_empty_list():\n    assert merge([]) == []\n",
        },
    ],
}
SPEC_TOTAL_LENGTH = {
    "imports": ["from intervals.core import Interval, total_length"],
    "tests": [
        {
            "name": "test_shared_point_counts_once",
            "source": "docstring",
            "code": "def test_shared_point_counts_once():\n"
            "    assert total_length([Interval(1, 3), Interval(3, 5)]) == 5\n",
        },
    ],
}
ADVERSARIAL_TESTS = {
    "imports": ["from intervals.core import Interval, merge"],
    "tests": [
        {
            "name": "test_three_touching_chain",
            "edge_case": "a chain of touching intervals",
            "oracle": "docstring",
            "code": "def test_three_touching_chain():\n"
            "    assert merge([Interval(5, 7), Interval(1, 3), Interval(3, 5)]) == [Interval(1, 7)]\n",
        },
        # wrong, and refuted by test_disjoint_intervals_stay_apart: the code must not bend to it
        {
            "name": "test_gap_intervals_merge",
            "edge_case": "a gap",
            "oracle": "property",
            "code": "def test_gap_intervals_merge():\n"
            "    assert merge([Interval(1, 2), Interval(5, 6)]) == [Interval(1, 6)]\n",
        },
        {
            "name": "test_skipped",
            "edge_case": "none",
            "oracle": "property",
            "code": "def test_skipped():\n    pytest.skip('later')\n",
        },
    ],
}


def test_the_models_tests_ship_with_their_proof(tmp_path: Path) -> None:
    from selfheal.agent.report.outputs import write_outputs
    from tests.conftest import report_errors

    debugger = ScriptedModel([Reply(json.dumps(CONCLUSION), usage=Usage(1400, 120))] * 2)
    bent = "        if merged and current.start <= merged[-1].end + 3:\n"
    generator = ScriptedModel([
        Reply("Compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + FIXED
              + ">>>>>>> REPLACE\n", usage=Usage(1100, 70)),
        # asked to make the gap test pass too: an edit that breaks an existing test
        Reply("Merge across gaps.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + FIXED + "=======\n" + bent
              + ">>>>>>> REPLACE\n", usage=Usage(1000, 50)),
    ])  # fmt: skip
    spec = ScriptedModel([
        Reply(json.dumps(SPEC_TOTAL_LENGTH), usage=Usage(400, 60)),  # the more suspicious one first
        Reply(json.dumps(SPEC_TESTS), usage=Usage(500, 150)),
    ])  # fmt: skip
    qa = ScriptedModel([Reply(json.dumps(ADVERSARIAL_TESTS), usage=Usage(800, 200))])
    repo = intervals_repo(tmp_path)
    trace = Trace()
    setup = ModelSetup(
        debugger=debugger,
        generator=generator,
        spec_tests=spec,
        qa_adversarial=qa,
        search_share=0.0,
        samples=1,
    )
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)

    assert result.status == "healed", result.error
    # the spec writer saw the signatures and docstrings of what the failing tests call, never a body
    spec_prompts = [call["messages"][-1].content for call in spec.calls]
    assert "Signature: def total_length(intervals: list[Interval]) -> int" in spec_prompts[0]
    assert "Signature: def merge(intervals: list[Interval]) -> list[Interval]" in spec_prompts[1]
    assert not any("merged[-1].end" in prompt for prompt in spec_prompts)
    # the adversarial writer aimed at the fixed code
    assert "current.start <= merged[-1].end" in qa.calls[0]["messages"][-1].content

    report = build_report(result)
    assert report_errors(report) == []
    shipped = {t["name"]: (t["kind"], t["fails_on_base"], t["passes_on_patch"], t["origin"])
               for t in report["new_tests"] if t["origin"] != "embedded"}  # fmt: skip
    # the embedded engine's own tests come along: inputs where the fix changed merge()'s result
    embedded = [t for t in report["new_tests"] if t["origin"] == "embedded"]
    assert len(embedded) == 5 and {t["kind"] for t in embedded} == {"fail_to_pass"}
    assert shipped == {
        "test_touching_intervals_merge": ("fail_to_pass", True, True, "spec_tests"),
        "test_empty_input_gives_empty_list": ("guard", False, True, "spec_tests"),
        "test_three_touching_chain": ("fail_to_pass", True, True, "qa_adversarial"),
        "test_shared_point_counts_once": ("fail_to_pass", True, True, "spec_tests"),
    }
    assert {t["path"] for t in report["new_tests"]} == {
        "tests/test_selfheal_merge.py", "tests/test_selfheal_total_length.py",
    }  # fmt: skip
    discarded = {d["name"]: d["reason"] for d in report["discarded_tests"]}
    assert set(discarded) == {"test_gap_intervals_merge", "test_skipped"}
    assert "may contradict the existing tests" in discarded["test_gap_intervals_merge"]
    # the further round aimed at it, and its candidate broke an existing test: the patch stayed
    assert f"+{FIXED.rstrip()}" in result.patch.splitlines()
    assert "test_gap_intervals_merge" in generator.calls[1]["messages"][-1].content
    assert "skip" in discarded["test_skipped"]
    assert result.verdict.rules[3].detail == (
        "8 new test(s) fail on base and pass on the patch; 1 shipped as guard(s)"
    )
    # the patch is source only; the tests are a separate file, proven, and left out of the workspace
    assert "tests/" not in result.patch
    text = result.test_files["tests/test_selfheal_merge.py"]
    assert text.count("# fails on the code before the fix, passes with it\n") == 7
    assert "test_gap_intervals_merge" not in text and "pytest.skip" not in text
    assert (result.metrics.tokens_in, result.metrics.tokens_out) == (6600, 770)

    out = tmp_path / "out"
    write_outputs(result, trace, out)
    written = out / "tests" / "tests" / "test_selfheal_merge.py"
    assert written.read_text() == text
    assert "### New tests" in (out / "summary.md").read_text()
    # the shipped tests pass in a clean clone with the patch applied, and fail without it
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    (clone / "tests" / "test_selfheal_merge.py").write_text(text)
    before = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/test_selfheal_merge.py"],
                            cwd=clone, capture_output=True, text=True)  # fmt: skip
    assert before.returncode == 1 and "7 failed, 1 passed" in before.stdout
    (tmp_path / "fix.diff").write_text(result.patch)
    git(clone, "apply", str(tmp_path / "fix.diff"))
    after = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/test_selfheal_merge.py"],
                           cwd=clone, capture_output=True, text=True)  # fmt: skip
    assert after.returncode == 0, after.stdout
    nodes = [e.node for e in trace.events]
    assert nodes.index("spec_tests") < nodes.index("debugger")
    assert "prove_tests" in nodes


# -- the critic ------------------------------------------------------------------------------------
SEND_BACK = {
    "decision": "send_back",
    "reason": "Write the condition as `not current.start > merged[-1].end` to match the docstring's wording.",
    "concerns": ["readability"],
}


def _critic_setup(critic: ScriptedModel, revision: str) -> tuple[ModelSetup, ScriptedModel]:
    debugger = ScriptedModel([Reply(json.dumps(CONCLUSION))])
    generator = ScriptedModel([
        Reply("Compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + FIXED
              + ">>>>>>> REPLACE\n"),
        Reply("As asked.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + revision
              + ">>>>>>> REPLACE\n"),
    ])  # fmt: skip
    return ModelSetup(debugger=debugger, generator=generator, critic=critic, search_share=0.0), generator


def test_a_patch_the_critic_sends_back_is_replaced_when_another_meets_the_verdict(tmp_path: Path) -> None:
    critic = ScriptedModel([Reply(json.dumps(SEND_BACK)), Reply('{"decision": "accept", "reason": "fine"}')])
    revision = "        if merged and not current.start > merged[-1].end:\n"
    setup, generator = _critic_setup(critic, revision)
    trace = Trace()
    result = heal(build_config(intervals_repo(tmp_path), {"python": sys.executable}), LocalSandbox(), trace,
                  model=setup)  # fmt: skip

    assert result.status == "healed"
    assert f"+{revision.rstrip()}" in result.patch.splitlines()
    assert "the critic sent the first patch back" in result.notes[-1]
    assert build_report(result)["critic"] == []
    # the generator was told why
    assert SEND_BACK["reason"] in generator.calls[1]["messages"][-1].content
    assert "merged[-1].end" in critic.calls[0]["messages"][-1].content  # it saw the patch
    decisions = [e.data["decision"] for e in trace.events if e.node == "critic"]
    assert decisions == ["send_back"]


def test_a_patch_the_critic_sends_back_still_ships_when_nothing_better_holds(tmp_path: Path) -> None:
    critic = ScriptedModel([Reply(json.dumps(SEND_BACK))])
    broken = "        if merged and current.start < merged[-1].end - 1:\n"  # breaks the overlap tests
    setup, _ = _critic_setup(critic, broken)
    result = heal(build_config(intervals_repo(tmp_path), {"python": sys.executable}), LocalSandbox(), Trace(),
                  model=setup)  # fmt: skip

    assert result.status == "healed"
    assert f"+{FIXED.rstrip()}" in result.patch.splitlines()
    report = build_report(result)
    assert report["critic"] == [SEND_BACK["reason"], "readability"]
    assert "no other patch met the verdict" in result.notes[-1]
    assert [t.name for t in result.verdict.new_tests] == [n for n in [t["name"] for t in report["new_tests"]]]


# -- a generated test that fails on the first patch drives a further repair -----------------------
CLAMP = '''\
def clamp(value, low, high):
    """Limit value to the closed range [low, high]. Raises ValueError when low > high."""
    if value < low:
        return low
    if value > high:
        return low
    return value
'''
CLAMP_TESTS = """\
from rangekit import clamp


def test_inside():
    assert clamp(5, 0, 10) == 5


def test_below():
    assert clamp(-1, 0, 10) == 0


def test_above():
    assert clamp(11, 0, 10) == 10
"""


def test_a_generated_test_failing_on_the_patch_gets_its_own_repair(tmp_path: Path) -> None:
    from tests.conftest import write_tree

    repo = tmp_path / "rangekit"
    write_tree(repo, {"rangekit/__init__.py": CLAMP, "tests/test_clamp.py": CLAMP_TESTS})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "clamp")
    diagnosis = {
        "root_cause": "clamp returns low for values above high.", "confidence": 0.9,
        "location": {"file": "rangekit/__init__.py", "line": 6, "function": "clamp"},
        "strategy": "Return high there.", "evidence": [],
    }  # fmt: skip
    check = {
        "root_cause": "clamp never checks low <= high, which its docstring promises.", "confidence": 0.8,
        "location": {"file": "rangekit/__init__.py", "line": 3, "function": "clamp"},
        "strategy": "Raise ValueError first when low > high.", "evidence": [],
    }  # fmt: skip
    debugger = ScriptedModel([Reply(json.dumps(diagnosis)), Reply(json.dumps(check))])
    generator = ScriptedModel([
        Reply("Return high.\n\nrangekit/__init__.py\n<<<<<<< SEARCH\n"
              "    if value > high:\n        return low\n"
              "=======\n"
              "    if value > high:\n        return high\n"
              ">>>>>>> REPLACE\n"),
        Reply("Check the range.\n\nrangekit/__init__.py\n<<<<<<< SEARCH\n"
              "    if value < low:\n        return low\n"
              "=======\n"
              "    if low > high:\n        raise ValueError(f\"empty range [{low}, {high}]\")\n"
              "    if value < low:\n        return low\n"
              ">>>>>>> REPLACE\n"),
    ])  # fmt: skip
    qa = ScriptedModel([Reply(json.dumps({
        "imports": ["import pytest", "from rangekit import clamp"],
        "tests": [
            {"name": "test_reversed_range_is_refused", "edge_case": "low > high", "oracle": "docstring",
             "code": "def test_reversed_range_is_refused():\n    with pytest.raises(ValueError):\n"
                     "        clamp(5, 10, 0)\n"},
            {"name": "test_far_above", "edge_case": "far above", "oracle": "docstring",
             "code": "def test_far_above():\n    assert clamp(10**9, 0, 10) == 10\n"},
        ],
    }))])  # fmt: skip
    lesson = "clamp's upper branch returned low; returning high fixed test_above."
    memory = ScriptedModel([
        Reply(json.dumps({"lessons": [lesson]})),
        Reply(json.dumps({"lessons": [lesson, "clamp must refuse low > high, as its docstring says."]})),
    ])  # fmt: skip
    setup = ModelSetup(
        debugger=debugger, generator=generator, qa_adversarial=qa, memory=memory, search_share=0.0, samples=1
    )
    trace = Trace()
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)

    assert result.status == "healed", result.error
    added = [
        ln[1:].strip() for ln in result.patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")
    ]
    assert added == ["if low > high:", 'raise ValueError(f"empty range [{low}, {high}]")', "return high"]
    kinds = {
        t["name"]: t["kind"] for t in build_report(result)["new_tests"] if t["origin"] == "qa_adversarial"
    }
    # both fail on the base code: there, clamp(5, 10, 0) returns 10 and clamp(10**9, 0, 10) returns 0
    assert kinds == {"test_reversed_range_is_refused": "fail_to_pass", "test_far_above": "fail_to_pass"}
    assert "the code before the fix" in result.test_files["tests/test_selfheal_clamp.py"]
    assert result.tests.discarded == []
    assert any("a further repair made them pass" in note for note in result.notes)
    # the second diagnosis was about the generated test, with what it said on the first patch,
    # and with the lesson the memory kept from the first round
    assert "test_reversed_range_is_refused" in debugger.calls[1]["messages"][1].content
    assert f"- {lesson}" in debugger.calls[1]["messages"][1].content
    assert (
        "tried" in memory.calls[0]["messages"][-1].content
        or "diagnosis" in memory.calls[0]["messages"][-1].content
    )
    updates = [e.data for e in trace.events if e.node == "memory"]
    assert [u["count"] for u in updates] == [1, 2] and {u["source"] for u in updates} == {"model"}
    assert apply_and_test(repo, result.patch, tmp_path).returncode == 0


# -- answers from different angles at once; the verdict, the tests and the patch size pick one ------
def test_parallel_answers_compete_and_the_smaller_patch_that_holds_wins(tmp_path: Path) -> None:
    debugger = ScriptedModel([Reply(json.dumps(CONCLUSION))])
    roundabout = (
        "        touching = merged and current.start == merged[-1].end\n"
        "        if merged and (current.start < merged[-1].end or touching):\n"
    )
    generator = ScriptedModel([
        Reply("Long way.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + roundabout
              + ">>>>>>> REPLACE\n"),
        Reply("Short way.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + FIXED
              + ">>>>>>> REPLACE\n"),
    ])  # fmt: skip
    setup = ModelSetup(debugger=debugger, generator=generator, search_share=0.0, samples=2, parallel=2)
    trace = Trace()
    result = heal(build_config(intervals_repo(tmp_path), {"python": sys.executable}), LocalSandbox(), trace,
                  model=setup)  # fmt: skip

    assert result.status == "healed"
    assert f"+{FIXED.rstrip()}" in result.patch.splitlines() and "touching" not in result.patch
    assert len(generator.calls) == 2
    # one answer was asked from the diagnosis, the other from the spectrum's top function alone
    asked = sorted("No confirmed diagnosis" in c["messages"][-1].content for c in generator.calls)
    assert asked == [False, True]
    [choice] = [e.data for e in trace.events if e.node == "choose"]
    assert sorted(c["patch_lines"] for c in choice["competitors"]) == [2, 3]
    assert {c["strategy"] for c in choice["competitors"]} == {"generator", "generator-sbfl"}
    assert choice["winner"] == "Short way."


def test_malformed_test_answers_are_degraded_or_discarded_never_fatal(tmp_path: Path) -> None:
    """Test writers that answer badly: a spec writer with no JSON twice (degraded after its retry),
    an adversarial writer whose first answer breaks the schema and whose tests do not parse or hide
    failures."""
    debugger = ScriptedModel([Reply(json.dumps(CONCLUSION))])
    generator = ScriptedModel([
        Reply("Compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + FIXED
              + ">>>>>>> REPLACE\n"),
    ])  # fmt: skip
    prose = [Reply("I think the tests should check merging."), Reply("Sure! Here are tests.")]
    spec = ScriptedModel(prose * 2)
    bad = [
        {"name": "test_broken_syntax", "edge_case": "x", "oracle": "property",
         "code": "def test_broken_syntax(:\n    assert merge([]) == []\n"},
        {"name": "test_hides", "edge_case": "x", "oracle": "property",
         "code": "def test_hides():\n    try:\n        merge(None)\n    except Exception:\n        pass\n"},
    ]  # fmt: skip
    not_a_test = {"name": "check_it", "edge_case": "x", "oracle": "x", "code": "def check_it(): pass\n"}
    imports = ["from intervals.core import Interval, merge"]
    qa = ScriptedModel([
        Reply(json.dumps({"imports": imports, "tests": [*bad, not_a_test]})),  # the schema refuses the name
        Reply(json.dumps({"imports": imports, "tests": bad})),
    ])  # fmt: skip
    roles = dict(debugger=debugger, generator=generator, spec_tests=spec, qa_adversarial=qa)
    setup = ModelSetup(**roles, search_share=0.0, samples=1)
    trace = Trace()
    config = build_config(intervals_repo(tmp_path), {"python": sys.executable})
    result = heal(config, LocalSandbox(), trace, model=setup)

    assert result.status == "healed"
    report = build_report(result)
    assert {t["origin"] for t in report["new_tests"]} == {"embedded"}  # only the engine's own tests ship
    discarded = {d["name"]: d["reason"] for d in report["discarded_tests"]}
    assert "not valid Python" in discarded["test_broken_syntax"]
    assert "try/except" in discarded["test_hides"]
    [qa_event] = [e.data for e in trace.events if e.node == "qa"]
    spec_answers = [a for a in qa_event["answers"] if a["role"] == "spec_tests"]
    assert [a["degraded"] for a in spec_answers] == [True, True]  # one per function, each after a retry
    assert len(spec.calls) == 4
    [qa_answer] = [a for a in qa_event["answers"] if a["role"] == "qa_adversarial"]
    assert not qa_answer["degraded"] and len(qa_answer["attempts"]) == 2  # valid after one retry
    assert "tests[2].name" in qa.calls[1]["messages"][-1].content  # the retry named what was wrong
