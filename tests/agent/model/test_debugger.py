"""The ReAct debugger driven by a scripted model, with real tools in a real local sandbox."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from selfheal.agent.model.debugger import Debugger, Diagnosis
from selfheal.agent.model.llm import Message, Reply, ScriptedModel, ToolCall, Usage
from selfheal.agent.model.prompts import PromptLibrary
from selfheal.agent.model.tokencount import request_tokens
from tests.agent.model.test_tools import TOTAL_LINE, heal  # noqa: F401  (the fixture)

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


# -- a small context window -------------------------------------------------------------------


@dataclass
class SmallWindowModel:
    """A scripted model with a llama.cpp-sized context window that measures each request it gets."""

    outputs: list[Reply]
    context_tokens: int = 4096
    name: str = "small-window"
    requests: list[list[Message]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)

    def complete(self, messages, *, tools=None, schema=None, max_tokens):
        self.requests.append(list(messages))
        self.sizes.append(request_tokens(messages, tools, schema))
        return self.outputs[len(self.requests) - 1]


RECURSE = "def a(n):\n    return b(n)\n\ndef b(n):\n    return a(n)\n\na(0)"
CHATTY = "for i in range(400):\n    print('value', i, 'x' * 30)"


def calls(*steps: tuple[str, dict]) -> list[Reply]:
    return [
        Reply("", tool_calls=(ToolCall(f"toolu_{n}", tool, arguments),), usage=Usage(100, 20))
        for n, (tool, arguments) in enumerate(steps, 1)
    ]


def answered(messages: list[Message]) -> bool:
    """Every tool call has its result in the same request, right after its turn."""
    pending: set[str] = set()
    for message in messages:
        if message.role == "assistant" and pending:
            return False
        if message.role == "assistant":
            pending = {call.id for call in message.tool_calls}
        elif message.role == "tool":
            if message.tool_call_id not in pending:
                return False
            pending.discard(message.tool_call_id)
    return not pending


def test_a_long_investigation_never_sends_a_request_over_a_small_window(heal) -> None:  # noqa: F811
    model = SmallWindowModel([
        *calls(
            ("run_snippet", {"code": RECURSE}),
            ("read_file", {"path": "shop/cart.py"}),
            ("run_tests", {"test_ids": ["tests"]}),
            ("inspect_function", {"name": "Cart.total"}),
            ("run_snippet", {"code": CHATTY}),
            ("search_code", {"pattern": "self"}),
            ("read_file", {"path": "tests/test_cart.py"}),
            ("localization", {}),
            ("run_snippet", {"code": RECURSE}),
            ("run_tests", {"test_ids": ["tests/test_cart.py::test_total"]}),
        ),
        Reply(json.dumps(CONCLUSION)),
    ])  # fmt: skip
    result = Debugger(model, PromptLibrary(), heal.toolbox(), max_steps=12).run(**FIELDS)

    assert result.diagnosis is not None and result.diagnosis.line == TOTAL_LINE
    assert (result.steps, result.tool_calls, result.degraded) == (11, 10, False)
    budget = 4096 - 512  # an eighth of the window is kept for the answer
    assert len(model.sizes) == 11 and max(model.sizes) <= budget
    assert result.context_tokens == 4096 and result.largest_request == max(model.sizes)
    system, task = result.transcript[:2]
    assert all(r[0].content == system.content and r[1] == task for r in model.requests)
    assert all(answered(r) for r in model.requests)
    # the window filled up: earlier steps were left out of later requests, behind a note
    assert result.dropped_turns >= 3
    note = model.requests[-1][2].content
    assert note.startswith("[") and "left out here to fit the model's context" in note
    assert model.requests[-1][-2:] == result.transcript[-3:-1]  # the latest step, as it happened
    # the transcript keeps every step; the long results were fitted where they were made
    assert len(result.transcript) == 2 + 11 + 10
    crash = result.transcript[3].content
    assert "frames omitted" in crash and crash.endswith("RecursionError: maximum recursion depth exceeded")
    assert "... " in result.transcript[11].content  # the chatty snippet's output, shortened


def test_the_task_source_is_cut_to_the_suspect_when_the_window_is_small(heal) -> None:  # noqa: F811
    cart = heal.codebase.sources["shop/cart.py"]
    filler = "\n".join(f"def helper_{n}(value):\n    return value + {n}\n" for n in range(300))
    model = SmallWindowModel([Reply(json.dumps(CONCLUSION))])
    fields = {
        **FIELDS,
        "source": f"# shop/cart.py\n{cart}\n{filler}",
        "suspects": "shop/cart.py:16 (score 1.00)",
    }
    result = Debugger(
        model, PromptLibrary(), heal.toolbox(), known_files=frozenset(heal.codebase.sources)
    ).run(**fields)
    assert result.diagnosis is not None
    task = model.requests[0][1].content
    assert "        return sum(self.items) - 1" in task and "    def total(self) -> int:" in task
    assert "# shop/cart.py" in task and "omitted ..." in task and "helper_299" not in task
    assert model.sizes[0] <= 4096 - 512


def test_a_window_too_small_for_the_prompt_degrades_without_sending_anything(heal) -> None:  # noqa: F811
    model = SmallWindowModel([Reply(json.dumps(CONCLUSION))], context_tokens=1024)
    result = Debugger(model, PromptLibrary(), heal.toolbox()).run(**FIELDS)
    assert (result.diagnosis, result.degraded, result.steps, model.requests) == (None, True, 0, [])
    assert result.stopped_because.startswith("the request does not fit the model's context of 1024 tokens (")
    assert result.stopped_because.endswith(" needed with 512 kept for the answer)")


def test_a_huge_answer_is_kept_in_the_conversation_as_its_head(heal) -> None:  # noqa: F811
    model = ScriptedModel([Reply("Let me think. " + "x" * 5_000_000), Reply(json.dumps(CONCLUSION))])
    result = Debugger(model, PromptLibrary(), heal.toolbox()).run(**FIELDS)
    assert result.diagnosis is not None and result.steps == 2
    sent_again = model.calls[1]["messages"][-2]  # the huge answer, then the correction
    assert sent_again.role == "assistant" and len(sent_again.content) < 5_000
    assert sent_again.content.endswith("more characters not repeated here]")
