from __future__ import annotations

import pytest

from selfheal.agent.exceptions import ConfigError
from selfheal.agent.model.llm import (
    Message,
    Provider,
    Reply,
    ScriptedModel,
    ScriptExhausted,
    ToolCall,
    Usage,
    make_provider,
)


def test_none_means_no_model_and_unknown_names_are_config_errors():
    assert make_provider("none") is None
    with pytest.raises(ConfigError, match="unknown provider 'gpt-9'"):
        make_provider("gpt-9")


def test_scripted_model_replays_in_order_and_records_calls():
    call = ToolCall("t1", "run_tests", {"ids": ["tests/test_a.py::test_x"]})
    model: Provider = ScriptedModel([Reply("thinking", (call,), Usage(10, 5)), "done"])
    first = model.complete([Message("user", "why does test_x fail?")], max_tokens=100)
    second = model.complete([Message("tool", "1 failed", tool_call_id="t1")], max_tokens=50)
    assert first.tool_calls == (call,) and first.usage == Usage(10, 5)
    assert second == Reply("done", model="scripted")
    assert [c["max_tokens"] for c in model.calls] == [100, 50]
    assert model.calls[1]["messages"][0].tool_call_id == "t1"
    with pytest.raises(ScriptExhausted, match="call 3 but only 2 replies scripted"):
        model.complete([], max_tokens=1)


def test_usage_adds_up():
    assert Usage(1, 2, 0.5) + Usage(3, 4, 0.25) == Usage(4, 6, 0.75)
