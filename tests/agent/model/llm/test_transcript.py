"""The transcript of a heal's model calls: what each call added to its conversation, capped."""

from __future__ import annotations

import pytest

from selfheal.agent.model.llm import Message, MeteredProvider, Reply, ScriptedModel, Usage, UsageLedger
from selfheal.agent.model.llm.scripted import ScriptExhausted
from selfheal.agent.model.llm.transcript import MAX_MESSAGE_CHARS, MAX_ROLE_CHARS, Transcript
from tests.agent.model.llm.conftest import anthropic_for
from tests.agent.model.llm.test_anthropic_provider import READ_FILE, RUN_TESTS
from tests.fakes.anthropic_server import message, ok, text, tool_use

SYSTEM = "Debug.\nLine two.\nLine three.\nLine four.\nLine five.\nLine six."


def test_a_tool_conversation_through_the_real_sdk_is_kept_as_what_each_call_added(start_anthropic):
    fake = start_anthropic([
        ok(message(text("Let me read the code and run the test."),
                   tool_use("toolu_01A", "read_file", {"path": "calc.py"}),
                   tool_use("toolu_01B", "run_tests", {"ids": ["tests/test_calc.py::test_total"]}),
                   input_tokens=1000, output_tokens=80)),
        ok(message("total() skips the last item.", input_tokens=1500, output_tokens=20)),
    ])  # fmt: skip
    transcript = Transcript()
    debugger = MeteredProvider(anthropic_for(fake), "debugger", UsageLedger(), transcript)
    conversation = [Message("system", SYSTEM), Message("user", "test_total fails")]
    first = debugger.complete(conversation, tools=[READ_FILE, RUN_TESTS], max_tokens=512)
    conversation += [
        first.as_message(),
        Message("tool", "def total(xs): ...", tool_call_id="toolu_01A"),
        Message("tool", "1 failed", tool_call_id="toolu_01B"),
    ]
    debugger.complete(conversation, tools=[READ_FILE, RUN_TESTS], max_tokens=512)

    one, two = transcript.records()
    assert [(t["kind"], t.get("tool", "")) for t in one["turns"]] == [
        ("system", ""), ("user", ""), ("assistant", ""),
        ("tool_call", "read_file"), ("tool_call", "run_tests"),
    ]  # fmt: skip
    assert (
        one["turns"][0]["text"]
        == "Debug.\nLine two.\nLine three.\nLine four.\n… (2 more lines of the role's prompt)"
    )
    assert one["turns"][3]["text"] == '{\n "path": "calc.py"\n}'
    assert (one["role"], one["call"], one["conversation"]) == ("debugger", 1, 1)
    assert (one["tokens_in"], one["tokens_out"], one["model"]) == (1000, 80, "claude-sonnet-5-5")
    assert one["cost_usd"] == pytest.approx((1000 * 2 + 80 * 10) / 1e6)
    assert two["turns"] == [
        {"kind": "tool_result", "text": "def total(xs): ...", "tool": "read_file"},
        {"kind": "tool_result", "text": "1 failed", "tool": "run_tests"},
        {"kind": "assistant", "text": "total() skips the last item."},
    ]
    assert (two["call"], two["conversation"], two["stop_reason"]) == (2, 1, "end_turn")


def test_answers_asked_from_different_angles_are_separate_conversations():
    transcript = Transcript()
    generator = MeteredProvider(ScriptedModel(["a", "b", "c"]), "generator", UsageLedger(), transcript)
    angle = [Message("system", "Repair."), Message("user", "the smallest change")]
    other = [Message("system", "Repair."), Message("user", "a guard instead")]
    generator.complete(angle, max_tokens=10)
    generator.complete(other, max_tokens=10)
    generator.complete([*angle, Message("assistant", "a"), Message("user", "did not apply")], max_tokens=10)

    calls = transcript.records()
    assert [(c["call"], c["conversation"]) for c in calls] == [(1, 1), (2, 2), (3, 1)]
    assert calls[2]["turns"] == [
        {"kind": "user", "text": "did not apply"},
        {"kind": "assistant", "text": "c"},
    ]


def test_a_long_message_is_cut_with_a_marker_and_a_role_stops_keeping_text_at_its_cap():
    transcript = Transcript()
    long = "x" * (MAX_MESSAGE_CHARS + 500)
    model = ScriptedModel([Reply(long, usage=Usage(10, 5, 0.25)) for _ in range(40)])
    qa = MeteredProvider(model, "spec_tests", UsageLedger(), transcript)
    for n in range(40):
        qa.complete([Message("user", f"case {n}")], max_tokens=10)

    calls = transcript.records()
    answer = calls[0]["turns"][1]["text"]
    assert answer == "x" * MAX_MESSAGE_CHARS + "… [500 more characters not kept]"
    kept = sum(len(t["text"]) for c in calls for t in c["turns"])
    assert kept <= MAX_ROLE_CHARS
    assert calls[-1]["turns"] == [] and calls[-1]["left_out"] == 2
    # every call keeps its tokens and cost, whether or not its text fits
    assert len(calls) == 40 and all(c["tokens_in"] == 10 and c["cost_usd"] == 0.25 for c in calls)


def test_a_failed_call_is_kept_with_its_error():
    transcript = Transcript()
    critic = MeteredProvider(ScriptedModel([]), "critic", UsageLedger(), transcript)
    with pytest.raises(ScriptExhausted):
        critic.complete([Message("user", "review this")], max_tokens=10)
    [call] = transcript.records()
    assert call["turns"] == [{"kind": "user", "text": "review this"}]
    assert call["error"] == "ScriptExhausted: call 1 but only 0 replies scripted"


def test_a_lone_surrogate_in_an_answer_is_kept_as_a_question_mark():
    transcript = Transcript()
    model = MeteredProvider(ScriptedModel(["half \ud800 a pair"]), "generator", UsageLedger(), transcript)
    model.complete([Message("user", "fix it")], max_tokens=10)
    [call] = transcript.records()
    assert call["turns"][1] == {"kind": "assistant", "text": "half ? a pair"}
