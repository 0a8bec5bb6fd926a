"""The anthropic provider: the real `anthropic` SDK against a fake Messages API in its own process."""

from __future__ import annotations

import json
import logging
import time

import pytest

from selfheal.agent.exceptions import (
    ConfigError,
    HealError,
    ProviderAuthError,
    ProviderBadRequest,
    ProviderError,
    ProviderOverloaded,
    ProviderRateLimited,
    ProviderServerError,
    ProviderUnavailable,
)
from selfheal.agent.model.llm import (
    Message,
    Price,
    ProviderSettings,
    ToolCall,
    ToolSpec,
    Usage,
    make_provider,
)
from tests.agent.model.llm.conftest import anthropic_for
from tests.fakes.anthropic_server import (
    error,
    message,
    ok,
    overloaded,
    rate_limited,
    server_error,
    text,
    thinking,
    tool_use,
)

READ_FILE = ToolSpec(
    "read_file",
    "Read a file of the repository.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
RUN_TESTS = ToolSpec(
    "run_tests",
    "Run test ids.",
    {"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}}}},
)


def test_plain_text_puts_system_on_top_and_counts_tokens_and_dollars(start_anthropic):
    fake = start_anthropic(
        [ok(message("The off-by-one is in range().", input_tokens=1200, output_tokens=300))]
    )
    provider = anthropic_for(fake)

    reply = provider.complete(
        [
            Message("system", "You are a careful debugger."),
            Message("user", "Why does test_total fail?"),
            Message("system", "Answer in one sentence."),
        ],
        max_tokens=256,
    )

    assert reply.text == "The off-by-one is in range()."
    assert reply.tool_calls == ()
    assert reply.stop_reason == "end_turn" and not reply.truncated
    assert reply.model == "claude-sonnet-5-5"
    # claude-sonnet-5-5: $2 / $10 per million tokens
    assert reply.usage == Usage(1200, 300, pytest.approx((1200 * 2 + 300 * 10) / 1e6))
    [request] = fake.requests()
    assert request["path"] == "/v1/messages" and request["key_ok"] is True
    assert request["headers"]["anthropic-version"]
    body = request["body"]
    assert body["system"] == "You are a careful debugger.\n\nAnswer in one sentence."
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Why does test_total fail?"}]}
    ]
    assert body["max_tokens"] == 256 and body["model"] == "claude-sonnet-5-5"
    assert "tools" not in body and "tool_choice" not in body


def test_tool_use_round_trip_sends_tool_results_as_user_blocks(start_anthropic):
    fake = start_anthropic(
        [
            ok(
                message(
                    text("Let me read the code and run the test."),
                    tool_use("toolu_01A", "read_file", {"path": "calc.py"}),
                    tool_use("toolu_01B", "run_tests", {"ids": ["tests/test_calc.py::test_total"]}),
                )
            ),
            ok(message("total() skips the last item: range(len(xs) - 1).")),
        ]
    )
    provider = anthropic_for(fake)
    conversation = [Message("system", "Debug."), Message("user", "test_total fails")]

    first = provider.complete(conversation, tools=[READ_FILE, RUN_TESTS], max_tokens=512)

    assert first.stop_reason == "tool_use"
    assert first.text == "Let me read the code and run the test."
    assert first.tool_calls == (
        ToolCall("toolu_01A", "read_file", {"path": "calc.py"}),
        ToolCall("toolu_01B", "run_tests", {"ids": ["tests/test_calc.py::test_total"]}),
    )
    conversation += [
        Message("assistant", first.text, first.tool_calls),
        Message("tool", "def total(xs): ...", tool_call_id="toolu_01A"),
        Message("tool", "1 failed", tool_call_id="toolu_01B"),
        Message("user", "Be specific."),
    ]
    final = provider.complete(conversation, tools=[READ_FILE, RUN_TESTS], max_tokens=512)

    assert final.text == "total() skips the last item: range(len(xs) - 1)."
    assert final.tool_calls == ()
    first_request, second_request = (r["body"] for r in fake.requests())
    assert first_request["tools"] == [
        {"name": t.name, "description": t.description, "input_schema": t.parameters}
        for t in (READ_FILE, RUN_TESTS)
    ]
    assert "tool_choice" not in first_request
    assert second_request["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me read the code and run the test."},
                {"type": "tool_use", "id": "toolu_01A", "name": "read_file", "input": {"path": "calc.py"}},
                {
                    "type": "tool_use",
                    "id": "toolu_01B",
                    "name": "run_tests",
                    "input": {"ids": ["tests/test_calc.py::test_total"]},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "def total(xs): ..."},
                {"type": "tool_result", "tool_use_id": "toolu_01B", "content": "1 failed"},
                {"type": "text", "text": "Be specific."},
            ],
        },
    ]


SUSPECT = {
    "type": "object",
    "properties": {"suspect": {"type": "string"}, "confidence": {"type": "number"}},
    "required": ["suspect", "confidence"],
}


def test_a_schema_is_answered_with_structured_outputs_by_default(start_anthropic):
    fake = start_anthropic([ok(message('{"suspect": "total", "confidence": 0.8}'))])

    reply = anthropic_for(fake).complete([Message("user", "Which function?")], schema=SUSPECT, max_tokens=100)

    assert json.loads(reply.text) == {"suspect": "total", "confidence": 0.8}
    assert reply.tool_calls == () and reply.stop_reason == "end_turn"
    body = fake.requests()[0]["body"]
    assert "tools" not in body and "tool_choice" not in body
    # the SDK's transform_schema makes it strict: no extra properties
    assert body["output_config"] == {
        "format": {"type": "json_schema", "schema": {**SUSPECT, "additionalProperties": False}}
    }


def test_structured_outputs_with_tools_let_the_model_call_a_tool_first(start_anthropic):
    fake = start_anthropic([ok(message(tool_use("toolu_1", "read_file", {"path": "x.py"})))])

    reply = anthropic_for(fake).complete(
        [Message("user", "go")], tools=[READ_FILE], schema=SUSPECT, max_tokens=99
    )

    assert reply.tool_calls == (ToolCall("toolu_1", "read_file", {"path": "x.py"}),)
    body = fake.requests()[0]["body"]
    assert [t["name"] for t in body["tools"]] == ["read_file"] and "tool_choice" not in body
    assert body["output_config"]["format"]["type"] == "json_schema"


def test_a_schema_can_be_answered_through_a_forced_tool(start_anthropic):
    fake = start_anthropic(
        [ok(message(tool_use("toolu_9", "answer", {"suspect": "total", "confidence": 0.8})))]
    )
    provider = anthropic_for(fake, schema_via="forced_tool")

    reply = provider.complete([Message("user", "Which function?")], schema=SUSPECT, max_tokens=100)

    assert json.loads(reply.text) == {"suspect": "total", "confidence": 0.8}
    assert reply.tool_calls == () and reply.stop_reason == "end_turn"
    body = fake.requests()[0]["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert body["tools"] == [
        {"name": "answer", "description": body["tools"][0]["description"], "input_schema": SUSPECT}
    ]
    assert "output_config" not in body


@pytest.mark.parametrize("schema_via", ["output_format", "forced_tool"])
def test_a_non_object_schema_is_wrapped_and_unwrapped(start_anthropic, schema_via):
    schema = {"type": "array", "items": {"type": "string"}}
    answer = {"value": ["a.py", "b.py"]}
    step = (
        message(json.dumps(answer))
        if schema_via == "output_format"
        else message(tool_use("t", "answer", answer))
    )
    fake = start_anthropic([ok(step)])

    reply = anthropic_for(fake, schema_via=schema_via).complete(
        [Message("user", "Which files?")], schema=schema, max_tokens=100
    )

    assert json.loads(reply.text) == ["a.py", "b.py"]
    body = fake.requests()[0]["body"]
    sent = (
        body["output_config"]["format"]["schema"]
        if schema_via == "output_format"
        else body["tools"][0]["input_schema"]
    )
    assert sent["properties"] == {"value": schema} and sent["required"] == ["value"]


def test_forced_tool_with_other_tools_lets_the_model_choose_a_tool_or_the_answer(start_anthropic):
    fake = start_anthropic([ok(message(tool_use("toolu_1", "read_file", {"path": "x.py"})))])

    reply = anthropic_for(fake, schema_via="forced_tool").complete(
        [Message("user", "go")], tools=[READ_FILE], schema=SUSPECT, max_tokens=100
    )

    assert reply.tool_calls == (ToolCall("toolu_1", "read_file", {"path": "x.py"}),)
    body = fake.requests()[0]["body"]
    assert body["tool_choice"] == {"type": "any"}
    assert [t["name"] for t in body["tools"]] == ["read_file", "answer"]


def test_thinking_blocks_go_back_unchanged_with_the_tool_results(start_anthropic):
    fake = start_anthropic(
        [
            ok(
                message(
                    thinking("The loop bound looks off.", signature="sig-abc"),
                    tool_use("toolu_7", "read_file", {"path": "calc.py"}),
                )
            ),
            ok(message("range() stops one short.")),
            ok(message("unused")),
        ]
    )
    provider = anthropic_for(fake)
    conversation = [Message("user", "why?")]

    first = provider.complete(conversation, tools=[READ_FILE], max_tokens=200)
    assert first.text == "" and first.tool_calls == (ToolCall("toolu_7", "read_file", {"path": "calc.py"}),)
    assert first.native[0] == {
        "type": "thinking",
        "thinking": "The loop bound looks off.",
        "signature": "sig-abc",
    }
    result = Message("tool", "for i in range(len(xs) - 1)", tool_call_id="toolu_7")

    final = provider.complete([*conversation, first.as_message(), result], tools=[READ_FILE], max_tokens=200)
    assert final.text == "range() stops one short."
    assert fake.requests()[1]["body"]["messages"][1]["content"] == list(first.native)

    # Rebuilt without its thinking block, the same turn is refused, as the real API does.
    stripped = Message("assistant", first.text, first.tool_calls)
    with pytest.raises(ProviderBadRequest, match=r"HTTP 400 .*Expected `thinking` or `redacted_thinking`"):
        provider.complete([*conversation, stripped, result], tools=[READ_FILE], max_tokens=200)


def test_a_truncated_answer_is_returned_with_its_stop_reason(start_anthropic):
    fake = start_anthropic([ok(message("def total(xs):\n    return sum(", stop_reason="max_tokens"))])

    reply = anthropic_for(fake).complete([Message("user", "write it")], max_tokens=8)

    assert reply.truncated and reply.stop_reason == "max_tokens"
    assert reply.text == "def total(xs):\n    return sum("


def test_rate_limit_with_retry_after_is_retried_by_the_sdk(start_anthropic):
    fake = start_anthropic([rate_limited(retry_after=1), ok(message("fine"))])
    provider = anthropic_for(fake, max_retries=2)

    started = time.monotonic()
    reply = provider.complete([Message("user", "hi")], max_tokens=10)
    elapsed = time.monotonic() - started

    assert reply.text == "fine"
    requests = fake.requests()
    assert [r["status"] for r in requests] == [429, 200]
    assert [r["headers"]["x-stainless-retry-count"] for r in requests] == ["0", "1"]
    assert elapsed >= 0.9  # the SDK waited as retry-after said


def test_rate_limit_left_after_retries_is_a_rate_limited_error(start_anthropic):
    fake = start_anthropic([rate_limited(retry_after=1, repeat=2)])

    with pytest.raises(ProviderRateLimited) as caught:
        anthropic_for(fake, max_retries=1).complete([Message("user", "hi")], max_tokens=10)

    assert caught.value.status == 429 and caught.value.retry_after == 1.0
    assert "anthropic: HTTP 429 rate_limit_error" in str(caught.value)
    assert len(fake.requests()) == 2


def test_overloaded_529_exhausting_the_retries_names_529(start_anthropic):
    fake = start_anthropic([overloaded(repeat=3)])

    with pytest.raises(ProviderOverloaded) as caught:
        anthropic_for(fake, max_retries=2).complete([Message("user", "hi")], max_tokens=10)

    err = caught.value
    assert isinstance(err, ProviderError) and isinstance(err, HealError)
    assert err.status == 529 and err.provider == "anthropic" and err.error_type == "overloaded_error"
    assert str(err).startswith("anthropic: HTTP 529 overloaded_error: Overloaded (3 attempts")
    assert err.request_id and err.request_id.startswith("req_")
    assert [r["status"] for r in fake.requests()] == [529, 529, 529]


def test_server_error_500_is_retried_then_reported(start_anthropic):
    fake = start_anthropic([server_error(), ok(message("recovered")), server_error(repeat=2)])

    assert (
        anthropic_for(fake, max_retries=1).complete([Message("user", "a")], max_tokens=5).text == "recovered"
    )
    with pytest.raises(ProviderServerError, match=r"^anthropic: HTTP 500 api_error: Internal server error"):
        anthropic_for(fake, max_retries=1).complete([Message("user", "b")], max_tokens=5)
    assert [r["status"] for r in fake.requests()] == [500, 200, 500, 500]


def test_a_refused_request_is_a_bad_request_and_not_retried(start_anthropic):
    fake = start_anthropic(
        [error(400, "invalid_request_error", "prompt is too long: 212000 tokens > 200000 maximum")]
    )

    with pytest.raises(ProviderBadRequest, match="HTTP 400 invalid_request_error: prompt is too long"):
        anthropic_for(fake, max_retries=3).complete([Message("user", "huge")], max_tokens=5)
    assert len(fake.requests()) == 1


def test_no_server_is_provider_unavailable(start_anthropic):
    fake = start_anthropic([])
    url = fake.url
    fake.stop()
    provider = make_provider(
        "anthropic",
        ProviderSettings(base_url=url, max_retries=0, timeout=5),
        env={"ANTHROPIC_API_KEY": "sk-ant-unused"},
    )

    with pytest.raises(ProviderUnavailable, match=f"anthropic: cannot connect .* at {url}"):
        provider.complete([Message("user", "hi")], max_tokens=5)


def test_the_key_never_appears_in_errors_reprs_logs_or_the_request_log(start_anthropic, caplog):
    secret = "sk-ant-api03-VERY-SECRET-" + "x" * 40
    fake = start_anthropic({"api_key": secret, "steps": [ok(message("hi")), overloaded(repeat=1)]})
    caplog.set_level(logging.DEBUG)
    good = make_provider(
        "anthropic", ProviderSettings(base_url=fake.url, max_retries=0), env={"ANTHROPIC_API_KEY": secret}
    )
    wrong = make_provider(
        "anthropic",
        ProviderSettings(base_url=fake.url, max_retries=0, api_key_env="MY_KEY"),
        env={"MY_KEY": secret[:-1] + "y"},
    )

    reply = good.complete([Message("user", "hi")], max_tokens=5)
    with pytest.raises(ProviderOverloaded) as overloaded_error:
        good.complete([Message("user", "hi")], max_tokens=5)
    with pytest.raises(ProviderAuthError) as auth_error:
        wrong.complete([Message("user", "hi")], max_tokens=5)
    with pytest.raises(ConfigError) as missing:
        make_provider("anthropic", ProviderSettings(api_key_env="UNSET_KEY_VAR"), env={})

    assert auth_error.value.status == 401
    assert str(auth_error.value).startswith("anthropic: HTTP 401 authentication_error: invalid x-api-key")
    assert str(missing.value) == "anthropic: no API key; set the environment variable UNSET_KEY_VAR"
    requests = fake.requests()
    assert [r["key_ok"] for r in requests] == [True, True, False]
    texts = [
        repr(good),
        repr(wrong),
        repr(reply),
        str(overloaded_error.value),
        repr(overloaded_error.value),
        repr(vars(overloaded_error.value)),
        str(auth_error.value),
        repr(vars(auth_error.value)),
        caplog.text,
        json.dumps(requests),
        fake.log_path.read_text(errors="replace"),
    ]
    for seen in texts:
        assert secret not in seen and secret[:-1] not in seen
    assert overloaded_error.value.__cause__ is None and overloaded_error.value.__suppress_context__


def test_prices_come_from_the_table_and_dated_names_match_their_alias(start_anthropic):
    fake = start_anthropic(
        [
            ok(message("a", model="claude-haiku-4-5-20251001", input_tokens=1_000_000, output_tokens=0)),
            ok(message("b", model="my-fine-tune", input_tokens=1000, output_tokens=1000)),
            ok(message("c", model="unknown-model", input_tokens=10, output_tokens=10)),
            ok(
                message(
                    "d",
                    input_tokens=1_000_000,
                    cache_creation_input_tokens=1_000_000,
                    cache_read_input_tokens=1_000_000,
                    output_tokens=0,
                )
            ),
        ]
    )
    provider = anthropic_for(
        fake, prices={"my-fine-tune": Price(2.0, 4.0), "claude-haiku-4-5": Price(1.0, 5.0)}
    )
    default_prices = anthropic_for(fake)

    assert provider.complete([Message("user", "x")], max_tokens=5).usage.cost_usd == pytest.approx(1.0)
    assert provider.complete([Message("user", "x")], max_tokens=5).usage.cost_usd == pytest.approx(0.006)
    assert provider.complete([Message("user", "x")], max_tokens=5).usage == Usage(10, 10, 0.0)
    cached = default_prices.complete([Message("user", "x")], max_tokens=5).usage
    # sonnet 5.5 input $2/M: uncached 1x, cache writes 1.25x, cache reads 0.1x
    assert cached.tokens_in == 3_000_000
    assert cached.cost_usd == pytest.approx(2.0 * (1 + 1.25 + 0.1))


def test_a_slow_answer_times_out_as_provider_unavailable(start_anthropic):
    fake = start_anthropic([ok(message("late"), delay=3)])

    with pytest.raises(
        ProviderUnavailable, match=r"^anthropic: timed out after 0.5s at http://127\.0\.0\.1:"
    ):
        anthropic_for(fake, timeout=0.5).complete([Message("user", "hi")], max_tokens=5)
