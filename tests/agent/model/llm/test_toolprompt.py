"""Tool use emulated through the prompt (llama.cpp): pure functions, no model."""

from __future__ import annotations

import json

import jsonschema
import pytest

from selfheal.agent.model.llm import Message, ToolCall, ToolSpec
from selfheal.agent.model.llm.toolprompt import (
    answer_schema,
    extract_json,
    parse_answer,
    render_messages,
    tool_instructions,
)

READ = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})
RUN = ToolSpec("run_tests", "Run tests.", {"type": "object", "properties": {"ids": {"type": "array"}}})
TOOLS = [READ, RUN]


@pytest.mark.parametrize(
    "raw",
    [
        '{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]}',
        'Sure!\n```json\n{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]}\n```',
        'I will call {"name": "read_file", "arguments": {"path": "a.py"}} now.',
        '{"tool_calls": [{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}]}',
        '{"tool_calls": {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}}',
        '{"name": "read_file", "parameters": {"path": "a.py"}}',
    ],
)
def test_tool_calls_are_read_from_what_small_models_write(raw):
    text, calls = parse_answer(raw, TOOLS, None)

    assert text == ""
    [call] = calls
    assert (call.name, call.arguments) == ("read_file", {"path": "a.py"})
    assert call.id.startswith("llamacpp-")


def test_several_calls_get_distinct_ids_and_unknown_tools_are_dropped():
    raw = json.dumps(
        {
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "a.py"}},
                {"name": "rm_rf", "arguments": {}},
                {"name": "run_tests", "arguments": {"ids": ["t::x"]}},
            ]
        }
    )

    _, calls = parse_answer(raw, TOOLS, None)

    assert [c.name for c in calls] == ["read_file", "run_tests"]
    assert len({c.id for c in calls}) == 2


@pytest.mark.parametrize(
    ("raw", "schema", "text"),
    [
        ('{"answer": "the loop is off by one"}', None, "the loop is off by one"),
        ('{"answer": {"suspect": "total"}}', {"type": "object"}, '{"suspect": "total"}'),
        ("no JSON at all", None, "no JSON at all"),
        (
            '{"tool_calls": [{"name": "rm_rf", "arguments": {}}]}',
            None,
            '{"tool_calls": [{"name": "rm_rf", "arguments": {}}]}',
        ),
        ('{"answer": "trunc', None, '{"answer": "trunc'),
    ],
)
def test_answers_and_everything_else_come_back_as_text(raw, schema, text):
    assert parse_answer(raw, TOOLS, schema) == (text, ())


def test_the_answer_schema_accepts_calls_and_answers_and_nothing_else():
    schema = answer_schema(TOOLS, None)
    assert schema is not None

    jsonschema.validate({"tool_calls": [{"name": "read_file", "arguments": {"path": "x"}}]}, schema)
    jsonschema.validate({"answer": "done"}, schema)
    for bad in ({"tool_calls": []}, {"tool_calls": [{"name": "nope", "arguments": {}}]}, {"answer": 3}, {}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    typed = answer_schema(
        [READ], {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    )
    jsonschema.validate({"answer": {"ok": True}}, typed)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"answer": "yes"}, typed)
    assert answer_schema(None, None) is None
    assert answer_schema(None, {"type": "object"}) == {"type": "object"}


def test_history_is_rendered_as_plain_turns_with_the_contract_in_the_system_turn():
    call = ToolCall("c1", "read_file", {"path": "a.py"})
    messages = [
        Message("system", "You debug."),
        Message("user", "Why does it fail?"),
        Message("assistant", "", (call,)),
        Message("tool", "def f(): ...", tool_call_id="c1"),
        Message("user", "And now?"),
    ]

    chat = render_messages(messages, TOOLS, None)

    assert [m["role"] for m in chat] == ["system", "user", "assistant", "user"]
    assert chat[0]["content"].startswith("You debug.\n\n" + tool_instructions(TOOLS, None)[:40])
    assert json.loads(chat[2]["content"]) == {
        "tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]
    }
    assert chat[3]["content"] == "Result of read_file (call c1):\ndef f(): ...\n\nAnd now?"
    assert render_messages([Message("user", "hi")], None, None) == [{"role": "user", "content": "hi"}]


def test_extract_json_finds_the_first_object():
    assert extract_json('noise {"a": 1} {"b": 2}') == {"a": 1}
    assert extract_json("[1, 2]") == [1, 2]
    assert extract_json("{broken") is None
