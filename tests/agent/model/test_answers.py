from __future__ import annotations

import json

import pytest

from selfheal.agent.exceptions import AnswerError, ProviderRateLimited
from selfheal.agent.model.answercoerce import coerce
from selfheal.agent.model.answerjson import close_truncated, drop_trailing_commas, extract_json
from selfheal.agent.model.answers import ECHO_CHARS, MAX_ANSWER_CHARS, ask_structured, parse_answer
from selfheal.agent.model.answershape import describe
from selfheal.agent.model.llm import Message, Reply, ScriptedModel, Usage

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["root_cause", "location", "confidence", "strategy"],
    "properties": {
        "root_cause": {"type": "string"},
        "location": {
            "type": "object",
            "additionalProperties": False,
            "required": ["file", "line", "function"],
            "properties": {
                "file": {"type": "string"},
                "line": {"type": "integer", "minimum": 1},
                "function": {"type": "string"},
            },
        },
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "strategy": {"type": "string"},
        "evidence": {"type": "array", "items": {"type": "string"}},
        "decision": {"enum": ["accept", "send_back"]},
        "verified": {"type": "boolean"},
    },
}
VALUE = {
    "root_cause": "off by one",
    "location": {"file": "stats/core.py", "line": 12, "function": "mean"},
    "confidence": 0.8,
    "strategy": "divide by len(xs)",
}
GOOD = json.dumps(VALUE)
SHAPE = (
    '{"root_cause": string, "location": {"file": string, "line": integer >= 1, "function": string}, '
    '"confidence": number 0..1, "strategy": string, "evidence"?: [string, ...], '
    '"decision"?: "accept" | "send_back", "verified"?: boolean}'
)


def test_a_valid_answer_needs_no_salvage():
    parsed = parse_answer(GOOD, SCHEMA)
    assert parsed.value == VALUE and parsed.degraded_steps == ()


def test_json_in_a_fence_between_prose_is_extracted():
    text = f"Here is my conclusion:\n```json\n{json.dumps(VALUE, indent=2)}\n```\nHope this helps."
    parsed = parse_answer(text, SCHEMA)
    assert parsed.value == VALUE and parsed.degraded_steps == ("extracted",)


def test_the_first_balanced_object_that_parses_is_taken_from_prose():
    text = f'I looked at {{the code}} and found it. {GOOD} Next, {{"other": 1}}'
    assert extract_json(text) == GOOD
    assert parse_answer(text, SCHEMA).degraded_steps == ("extracted",)


def test_trailing_commas_are_removed_outside_strings():
    assert drop_trailing_commas('{"a": [1, 2,], "b": "x,]",\n}') == '{"a": [1, 2], "b": "x,]"\n}'
    text = GOOD[:-1] + ', "evidence": ["mean([1]) == 2.0",],}'
    parsed = parse_answer(text, SCHEMA)
    assert parsed.value["evidence"] == ["mean([1]) == 2.0"]
    assert parsed.degraded_steps == ("trailing_commas",)


def test_a_truncated_answer_is_closed_and_an_incomplete_item_dropped():
    assert close_truncated('{"a": "unfinished str') == '{"a": "unfinished str"}'
    assert close_truncated('{"a": [1, 2,') == '{"a": [1, 2]}'
    assert close_truncated('{"a": 1, "b') == '{"a": 1}'  # a key without a value is dropped
    assert close_truncated('{"a": 1, "b": ') == '{"a": 1}'
    assert close_truncated('{"a": "x\\') == '{"a": "x"}'  # a dangling escape
    assert close_truncated('{"a": 1}') is None  # not truncated: nothing to close

    text = GOOD[:-1] + ', "evidence": ["mean([1, 2, 3]) returned 3.0", "line 12 divides by len(x'
    parsed = parse_answer(text, SCHEMA)
    assert parsed.value["evidence"] == ["mean([1, 2, 3]) returned 3.0", "line 12 divides by len(x"]
    assert parsed.degraded_steps == ("closed_truncation",)


def test_a_fenced_answer_cut_off_before_its_closing_fence_is_extracted_and_closed():
    text = "```json\n" + GOOD[:-1] + ', "evidence": ["it re'
    parsed = parse_answer(text, SCHEMA)
    assert parsed.value == {**VALUE, "evidence": ["it re"]}
    assert parsed.degraded_steps == ("extracted", "closed_truncation")


def test_simple_type_mismatches_are_coerced_as_the_schema_asks():
    sent = {
        "root_cause": "off by one",
        "location": {"file": "stats/core.py", "line": "12", "function": "mean", "column": 4},
        "confidence": "0.8",
        "strategy": "divide by len(xs)",
        "evidence": "mean([1]) == 2.0",
        "decision": "Send back",
        "verified": "TRUE",
        "notes": "dropped: additionalProperties is false",
    }
    parsed = parse_answer(json.dumps(sent), SCHEMA)
    assert parsed.value == {
        **VALUE,
        "evidence": ["mean([1]) == 2.0"],
        "decision": "send_back",
        "verified": True,
    }
    assert parsed.degraded_steps == ("coerced",)
    assert coerce(12.0, {"type": "integer"}) == 12 and isinstance(coerce(12.0, {"type": "integer"}), int)
    assert coerce(12, {"type": "string"}) == "12"
    assert coerce(GOOD, SCHEMA) == VALUE  # an object sent as a JSON string
    assert coerce("twelve", {"type": "integer"}) == "twelve"  # not a simple mismatch: left to fail


def test_salvage_steps_combine_in_order():
    text = "Answer:\n```\n" + json.dumps({**VALUE, "confidence": "0.8"})[:-1] + ',\n  "evidence": ["a",'
    parsed = parse_answer(text, SCHEMA)
    assert parsed.value == {**VALUE, "evidence": ["a"]}
    assert parsed.degraded_steps == ("extracted", "closed_truncation", "coerced")


def test_an_answer_of_the_wrong_shape_raises_feedback_for_the_model():
    wrong = {**VALUE, "location": {"file": "stats/core.py", "line": "twelve", "function": "mean"}}
    with pytest.raises(AnswerError) as info:
        parse_answer(json.dumps(wrong), SCHEMA)
    feedback = info.value.feedback
    assert feedback.startswith("Your answer is JSON but does not match the required shape:\n")
    assert "- at $.location.line: 'twelve' is not of type 'integer'" in feedback
    assert feedback.endswith("no prose and no code fences:\n" + SHAPE)
    assert describe(SCHEMA) == SHAPE


def test_missing_keys_and_out_of_range_values_are_named():
    with pytest.raises(AnswerError) as info:
        parse_answer(json.dumps({"root_cause": "x", "confidence": 1.5}), SCHEMA)
    feedback = info.value.feedback
    assert "- at $: 'location' is a required property" in feedback
    assert "- at $: 'strategy' is a required property" in feedback
    assert "- at $.confidence: 1.5 is greater than the maximum of 1" in feedback


def test_prose_without_json_is_not_json():
    with pytest.raises(AnswerError) as info:
        parse_answer("I could not find the bug, sorry.", SCHEMA)
    assert info.value.feedback.startswith("Your answer is not valid JSON (Expecting value at line 1 column 1")
    assert info.value.feedback.endswith(SHAPE)


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_an_empty_answer_says_so(text):
    with pytest.raises(AnswerError, match=r"^Your answer was empty\. Reply with only a JSON value"):
        parse_answer(text, SCHEMA)


def test_a_huge_answer_is_capped_and_the_cap_is_recorded():
    text = GOOD + "\n" + "and some rambling " * 20_000  # 360k characters after the JSON
    assert len(text) > MAX_ANSWER_CHARS
    parsed = parse_answer(text, SCHEMA)
    assert parsed.value == VALUE
    assert parsed.degraded_steps == ("capped", "extracted")


def test_a_huge_answer_whose_json_does_not_fit_says_what_was_read():
    text = json.dumps({"root_cause": "x" * 300_000, **{k: v for k, v in VALUE.items() if k != "root_cause"}})
    with pytest.raises(AnswerError) as info:
        parse_answer(text, SCHEMA)
    assert f"Only the first {MAX_ANSWER_CHARS} characters of your answer were read" in info.value.feedback
    assert info.value.steps == ("capped", "closed_truncation")


def test_a_top_level_array_schema_extracts_an_array():
    schema = {"type": "array", "items": {"type": "integer"}}
    assert parse_answer("The lines are [3, 4, 5].", schema).value == [3, 4, 5]


# -- ask_structured -----------------------------------------------------------------------------

ASK = [Message("system", "You debug."), Message("user", "Why does test_mean fail?")]


def test_a_bad_answer_is_retried_once_with_the_feedback():
    model = ScriptedModel(
        [Reply("The bug is in mean().", usage=Usage(100, 10)), Reply(GOOD, usage=Usage(150, 30))]
    )
    value, record = ask_structured(model, ASK, SCHEMA, max_tokens=500)
    assert value == VALUE
    assert not record.degraded and not record.salvaged
    assert record.usage == Usage(250, 40)
    assert [a.error is None for a in record.attempts] == [False, True]
    assert [call["schema"] for call in model.calls] == [SCHEMA, SCHEMA]
    assert [call["max_tokens"] for call in model.calls] == [500, 500]
    retry = model.calls[1]["messages"]
    assert retry[:2] == ASK
    assert retry[2] == Message("assistant", "The bug is in mean().")
    assert retry[3].role == "user"
    assert retry[3].content.startswith("Your answer is not valid JSON")
    assert retry[3].content == record.attempts[0].error


def test_a_salvaged_answer_is_accepted_without_a_retry_and_recorded():
    model = ScriptedModel([f"```json\n{GOOD}\n```"])
    value, record = ask_structured(model, ASK, SCHEMA, max_tokens=500)
    assert value == VALUE
    assert len(model.calls) == 1
    assert record.salvaged and record.attempts[0].steps == ("extracted",)


def test_two_bad_answers_give_none_and_a_degraded_record():
    model = ScriptedModel(['{"root_cause": "x"}', "still not it"])
    value, record = ask_structured(model, ASK, SCHEMA, max_tokens=500)
    assert value is None and record.degraded
    assert len(model.calls) == 2
    assert "'location' is a required property" in record.attempts[0].error
    assert record.attempts[1].error.startswith("Your answer is not valid JSON")
    assert json.loads(json.dumps(record.as_dict()))["degraded"] is True


def test_no_retry_when_retries_is_zero():
    model = ScriptedModel(["nope"])
    value, record = ask_structured(model, ASK, SCHEMA, max_tokens=500, retries=0)
    assert value is None and record.degraded and len(model.calls) == 1


def test_an_empty_answer_is_retried():
    model = ScriptedModel(["", GOOD])
    value, record = ask_structured(model, ASK, SCHEMA, max_tokens=500)
    assert value == VALUE
    assert record.attempts[0].error.startswith("Your answer was empty.")
    assert model.calls[1]["messages"][2] == Message("assistant", "")


def test_a_huge_truncated_answer_is_retried_with_a_short_echo():
    huge = "Let me think. " * 30_000  # 420k characters of prose, cut off by the token limit
    model = ScriptedModel([Reply(huge, stop_reason="max_tokens"), GOOD])
    value, record = ask_structured(model, ASK, SCHEMA, max_tokens=4096)
    assert value == VALUE
    first = record.attempts[0]
    assert (first.chars, first.stop_reason) == (len(huge), "max_tokens")
    assert first.steps == ("capped",)
    assert first.error.startswith(
        "Your answer was cut off by the token limit (4096 tokens): answer more briefly.\n"
    )
    echo = model.calls[1]["messages"][2].content
    assert echo.startswith(huge[:ECHO_CHARS])
    assert echo.endswith(f"[... {len(huge) - ECHO_CHARS} more characters not repeated here]")


def test_provider_errors_propagate():
    class RateLimited:
        name = "limited"

        def complete(self, messages, *, tools=None, schema=None, max_tokens):
            raise ProviderRateLimited("429 rate limited", provider="limited", status=429)

    with pytest.raises(ProviderRateLimited):
        ask_structured(RateLimited(), ASK, SCHEMA, max_tokens=10)


# -- hostile answers (tests/agent/model/hostile_answers/ found these) ------------------------------


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"root_cause": ' + "[" * 100_000])
def test_json_nested_past_the_recursion_limit_is_an_answer_error_not_a_crash(text):
    with pytest.raises(AnswerError) as caught:
        parse_answer(text, SCHEMA)
    assert "nested too deeply" in caught.value.feedback


def test_lone_surrogates_in_an_answer_become_replacement_characters():
    text = GOOD.replace("off by one", "off by \ud800 one \udcff")  # a JSON "\\ud800" or undecodable bytes
    parsed = parse_answer(text, SCHEMA)
    assert parsed.value["root_cause"] == "off by \ufffd one \ufffd"
    json.dumps(parsed.value, ensure_ascii=False).encode("utf-8")  # writable as UTF-8 now
