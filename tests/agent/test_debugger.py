"""The ReAct debugger driven by a scripted model, with real tools in a real local sandbox."""

from __future__ import annotations

import json

from selfheal.agent.debugger import Debugger, Diagnosis
from selfheal.agent.llm import Reply, ScriptedModel, ToolCall, Usage
from selfheal.agent.prompts import PromptLibrary
from tests.agent.test_tools import TOTAL_LINE, heal  # noqa: F401  (the fixture)

CONCLUSION = {
    "root_cause": "Cart.total subtracts 1 from the sum, so every total is one short.",
    "location": {"file": "shop/cart.py", "line": TOTAL_LINE, "function": "Cart.total"},
    "confidence": 0.93,
    "strategy": "Return the plain sum of the items.",
    "evidence": ["Cart().add(2).add(3).total() printed 4"],
}
FIELDS = {
    "failing": "tests/test_cart.py::test_total",
    "suspects": "shop/cart.py:16",
    "source": "...",
    "lessons": "",
}


def tool_reply(tool: str, **arguments) -> Reply:
    return Reply("", tool_calls=(ToolCall(f"toolu_{tool}", tool, arguments),), usage=Usage(120, 30))


def test_it_investigates_with_tools_then_concludes(heal) -> None:  # noqa: F811
    model = ScriptedModel([
        tool_reply("run_snippet", code="from shop.cart import Cart\nprint(Cart().add(2).add(3).total())"),
        tool_reply("inspect_function", name="Cart.total"),
        Reply(json.dumps(CONCLUSION), usage=Usage(300, 80)),
    ])  # fmt: skip
    result = Debugger(model, PromptLibrary(), heal.toolbox()).run(**FIELDS)

    assert result.diagnosis == Diagnosis(
        root_cause=CONCLUSION["root_cause"], file="shop/cart.py", line=TOTAL_LINE, function="Cart.total",
        confidence=0.93, strategy="Return the plain sum of the items.",
        evidence=("Cart().add(2).add(3).total() printed 4",),
    )  # fmt: skip
    assert (result.steps, result.tool_calls, result.degraded) == (3, 2, False)
    assert result.usage == Usage(540, 140)
    assert result.stopped_because == "concluded after 3 steps, 2 tool calls"
    # what the model saw after its first call: the snippet's real output, as a tool result
    observation = model.calls[1]["messages"][-1]
    assert (observation.role, observation.tool_call_id) == ("tool", "toolu_run_snippet")
    assert (
        observation.content
        == "exit code 0 in " + observation.content.split(" in ")[1].split("\n")[0] + "\nstdout:\n4"
    )
    assert [spec.name for spec in model.calls[0]["tools"]] == [
        "run_snippet", "run_tests", "inspect_function", "read_file", "search_code", "diff_iterations",
        "localization",
    ]  # fmt: skip


def test_bad_tool_calls_are_observations_and_a_fenced_conclusion_is_salvaged(heal) -> None:  # noqa: F811
    model = ScriptedModel([
        tool_reply("rm_rf", path="/"),
        tool_reply("read_file", path="../../etc/passwd"),
        Reply("Here is my conclusion:\n```json\n" + json.dumps(CONCLUSION) + ",\n```"),
    ])  # fmt: skip
    result = Debugger(model, PromptLibrary(), heal.toolbox()).run(**FIELDS)
    unknown = model.calls[1]["messages"][-1].content
    assert unknown == (
        "unknown tool `rm_rf`; the tools are: run_snippet, run_tests, inspect_function, read_file, "
        "search_code, diff_iterations, localization"
    )
    refused = model.calls[2]["messages"][-1].content
    assert (
        refused
        == "refused: '../../etc/passwd' is outside the project; give a path inside it, e.g. pkg/core.py"
    )
    assert result.diagnosis is not None and result.diagnosis.line == TOTAL_LINE
    assert "extracted" in result.salvage


def test_a_wrong_conclusion_is_sent_back_once_then_the_step_is_degraded(heal) -> None:  # noqa: F811
    wrong_file = {
        **CONCLUSION,
        "location": {"file": "tests/test_cart.py", "line": 5, "function": "test_total"},
    }
    fixed = ScriptedModel([Reply(json.dumps(wrong_file)), Reply(json.dumps(CONCLUSION))])
    result = Debugger(
        fixed, PromptLibrary(), heal.toolbox(), known_files=frozenset(heal.codebase.sources)
    ).run(**FIELDS)
    assert result.diagnosis is not None and result.diagnosis.file == "shop/cart.py"
    feedback = fixed.calls[1]["messages"][-1].content
    assert "'tests/test_cart.py' is not a project source file selfheal may change" in feedback

    hopeless = ScriptedModel([Reply("I think it's the cart."), Reply("{not json")])
    gave_up = Debugger(hopeless, PromptLibrary(), heal.toolbox()).run(**FIELDS)
    assert (gave_up.diagnosis, gave_up.degraded) == (None, True)
    assert gave_up.stopped_because.startswith("no valid conclusion")


def test_the_step_cap_ends_an_endless_investigation(heal) -> None:  # noqa: F811
    model = ScriptedModel([tool_reply("localization")] * 3)
    result = Debugger(model, PromptLibrary(), heal.toolbox(), max_steps=3).run(**FIELDS)
    assert (result.diagnosis, result.degraded, result.steps) == (None, True, 3)
    assert result.stopped_because == "step cap of 3 reached without a conclusion"
