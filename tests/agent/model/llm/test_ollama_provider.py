"""The ollama provider: the real `ollama` SDK against a fake /api/chat in its own process."""

from __future__ import annotations

import json
import logging

import pytest

from selfheal.agent.exceptions import (
    ProviderAuthError,
    ProviderBadRequest,
    ProviderOverloaded,
    ProviderRateLimited,
    ProviderServerError,
    ProviderUnavailable,
)
from selfheal.agent.model.llm import Message, Price, ToolSpec, Usage
from tests.agent.model.llm.conftest import ollama_for
from tests.fakes.ollama_server import chat, error, ok, tool_call

READ_FILE = ToolSpec(
    "read_file",
    "Read a file of the repository.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def test_plain_text_keeps_system_in_messages_and_counts_tokens(start_ollama):
    fake = start_ollama([ok(chat("Off by one.", prompt_eval_count=40, eval_count=4))])

    reply = ollama_for(fake).complete(
        [Message("system", "You are a debugger."), Message("user", "Why?")], max_tokens=64
    )

    assert reply.text == "Off by one." and reply.tool_calls == ()
    assert reply.stop_reason == "end_turn" and not reply.truncated
    assert reply.usage == Usage(40, 4, 0.0)
    assert reply.model == "qwen2.5-coder:7b"
    [request] = fake.requests()
    assert request["path"] == "/api/chat" and request["key_ok"] is None
    body = request["body"]
    assert body["stream"] is False
    assert body["model"] == "qwen2.5-coder:7b"
    assert body["options"] == {"num_predict": 64}
    assert body["messages"] == [
        {"role": "system", "content": "You are a debugger."},
        {"role": "user", "content": "Why?"},
    ]
    assert not body.get("tools") and "format" not in body  # the SDK always sends "tools": []


def test_tool_call_round_trip_sends_role_tool_with_the_tool_name(start_ollama):
    fake = start_ollama(
        [
            ok(chat(tool_calls=[tool_call("read_file", {"path": "calc.py"})])),
            ok(chat("range(len(xs) - 1) skips the last item.")),
        ]
    )
    provider = ollama_for(fake)
    conversation = [Message("user", "test_total fails")]

    first = provider.complete(conversation, tools=[READ_FILE], max_tokens=100)

    assert first.stop_reason == "tool_use"
    [call] = first.tool_calls
    assert (call.name, call.arguments) == ("read_file", {"path": "calc.py"}) and call.id
    conversation += [first.as_message(), Message("tool", "def total(xs): ...", tool_call_id=call.id)]
    final = provider.complete(conversation, tools=[READ_FILE], max_tokens=100)

    assert final.text == "range(len(xs) - 1) skips the last item."
    first_body, second_body = (r["body"] for r in fake.requests())
    assert first_body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": READ_FILE.description,
                "parameters": READ_FILE.parameters,
            },
        }
    ]
    assert second_body["messages"][1:] == [
        {  # the SDK drops the empty "content"
            "role": "assistant",
            "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "calc.py"}}}],
        },
        {"role": "tool", "content": "def total(xs): ...", "tool_name": "read_file"},
    ]


def test_a_schema_is_sent_as_format(start_ollama):
    schema = {"type": "object", "properties": {"suspect": {"type": "string"}}, "required": ["suspect"]}
    fake = start_ollama([ok(chat('{"suspect": "total"}'))])

    reply = ollama_for(fake, context_tokens=8192, temperature=0.0).complete(
        [Message("user", "Which?")], schema=schema, max_tokens=50
    )

    assert json.loads(reply.text) == {"suspect": "total"}
    body = fake.requests()[0]["body"]
    assert body["format"] == schema
    assert body["options"] == {"num_predict": 50, "num_ctx": 8192, "temperature": 0.0}


def test_done_reason_length_is_a_truncated_reply(start_ollama):
    fake = start_ollama([ok(chat('{"suspect": "to', done_reason="length"))])

    reply = ollama_for(fake).complete([Message("user", "x")], max_tokens=5)

    assert reply.truncated and reply.stop_reason == "max_tokens" and reply.text == '{"suspect": "to'


def test_local_models_cost_nothing_unless_priced(start_ollama):
    fake = start_ollama([ok(chat("a", eval_count=1000, prompt_eval_count=1000))] * 2)

    assert ollama_for(fake).complete([Message("user", "x")], max_tokens=5).usage.cost_usd == 0.0
    priced = ollama_for(fake, prices={"qwen2.5-coder:7b": Price(1.0, 1.0)})
    assert priced.complete([Message("user", "x")], max_tokens=5).usage.cost_usd == pytest.approx(0.002)


@pytest.mark.parametrize(
    ("status", "message", "error_class"),
    [
        (500, "llama runner process has terminated: signal: killed", ProviderServerError),
        (503, "server busy, please try again.  maximum pending requests exceeded", ProviderOverloaded),
        (429, "too many requests", ProviderRateLimited),
        (400, "invalid options", ProviderBadRequest),
    ],
)
def test_http_errors_become_provider_errors_naming_the_status(start_ollama, status, message, error_class):
    fake = start_ollama([error(status, message)])

    with pytest.raises(error_class) as caught:
        ollama_for(fake).complete([Message("user", "x")], max_tokens=5)

    assert str(caught.value) == f"ollama: HTTP {status}: {message}"
    assert caught.value.status == status and caught.value.provider == "ollama"


def test_an_unknown_model_is_a_bad_request_naming_it(start_ollama):
    fake = start_ollama({"models": ["llama3.2"], "steps": []})

    with pytest.raises(ProviderBadRequest, match=r'ollama: HTTP 404: model "qwen2.5-coder:7b" not found'):
        ollama_for(fake).complete([Message("user", "x")], max_tokens=5)


def test_no_server_is_provider_unavailable(start_ollama):
    fake = start_ollama([])
    url = fake.url
    fake.stop()

    with pytest.raises(ProviderUnavailable, match=f"ollama: cannot connect .* at {url}"):
        ollama_for(fake, max_retries=0).complete([Message("user", "x")], max_tokens=5)


def test_a_hosted_ollama_gets_the_bearer_key_which_never_leaks(start_ollama, caplog):
    secret = "ollama-VERY-SECRET-" + "k" * 30
    fake = start_ollama({"api_key": secret, "steps": [ok(chat("hi")), error(500, "boom")]})
    caplog.set_level(logging.DEBUG)
    good = ollama_for(fake, env={"OLLAMA_API_KEY": secret})
    wrong = ollama_for(fake, env={"OLLAMA_API_KEY": secret[:-1] + "x"})

    reply = good.complete([Message("user", "x")], max_tokens=5)
    with pytest.raises(ProviderServerError) as server_error:
        good.complete([Message("user", "x")], max_tokens=5)
    with pytest.raises(ProviderAuthError, match=r"^ollama: HTTP 401: unauthorized$") as auth_error:
        wrong.complete([Message("user", "x")], max_tokens=5)

    requests = fake.requests()
    assert [r["key_ok"] for r in requests] == [True, True, False]
    assert all(r["key_headers"] == ["authorization"] for r in requests)
    for seen in (
        repr(good),
        repr(reply),
        str(server_error.value),
        repr(vars(auth_error.value)),
        caplog.text,
        json.dumps(requests),
    ):
        assert secret not in seen and secret[:-1] not in seen


def test_a_slow_answer_times_out_as_provider_unavailable(start_ollama):
    fake = start_ollama([ok(chat("late"), delay=3)])

    with pytest.raises(ProviderUnavailable, match=r"^ollama: timed out after 0.5s at http://127\.0\.0\.1:"):
        ollama_for(fake, timeout=0.5).complete([Message("user", "x")], max_tokens=5)
