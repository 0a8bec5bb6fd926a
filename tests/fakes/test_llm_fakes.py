"""The fake model APIs answer malformed requests the way the real ones do (plain urllib client)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_server import TEST_KEY, FakeAnthropic, message, ok
from tests.fakes.ollama_server import FakeOllama, chat

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post(url: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", **headers},
    )
    try:
        with OPENER.open(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@pytest.fixture
def anthropic(tmp_path: Path) -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic.start(tmp_path, [ok(message("one")), ok(message("two"))])
    yield fake
    fake.stop()


AUTH = {"x-api-key": TEST_KEY, "anthropic-version": "2023-06-01"}
GOOD = {"model": "claude-sonnet-5-5", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize(
    ("body", "headers", "status", "error_type", "fragment"),
    [
        (GOOD, {"anthropic-version": "2023-06-01"}, 401, "authentication_error", "invalid x-api-key"),
        (
            GOOD,
            {"x-api-key": TEST_KEY},
            400,
            "invalid_request_error",
            "anthropic-version: header is required",
        ),
        ({**GOOD, "max_tokens": 0}, AUTH, 400, "invalid_request_error", "max_tokens"),
        (
            {**GOOD, "messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "y"}]},
            AUTH,
            400,
            "invalid_request_error",
            "messages.0.role",
        ),
        (
            {
                **GOOD,
                "messages": [
                    {"role": "user", "content": "a"},
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
                    },
                    {"role": "user", "content": "forgot the result"},
                ],
            },
            AUTH,
            400,
            "invalid_request_error",
            "`tool_use` ids were found without `tool_result` blocks immediately after: t1",
        ),
        (
            {
                **GOOD,
                "tools": [{"name": "f", "input_schema": {"type": "object"}}],
                "tool_choice": {"type": "tool", "name": "g"},
            },
            AUTH,
            400,
            "invalid_request_error",
            "tool_choice: tool 'g' not found",
        ),
    ],
)
def test_anthropic_checks_requests_before_using_a_step(
    anthropic, body, headers, status, error_type, fragment
):
    got_status, got = post(f"{anthropic.url}/v1/messages", body, headers)

    assert got_status == status
    assert (
        got["type"] == "error" and got["error"]["type"] == error_type and fragment in got["error"]["message"]
    )
    assert anthropic.state()["steps_used"] == 0


def test_anthropic_replays_steps_then_says_it_ran_out(anthropic):
    assert post(f"{anthropic.url}/v1/messages", GOOD, AUTH)[1]["content"][0]["text"] == "one"
    bearer = {"authorization": f"Bearer {TEST_KEY}", "anthropic-version": "2023-06-01"}
    assert post(f"{anthropic.url}/v1/messages", GOOD, bearer)[1]["content"][0]["text"] == "two"
    status, body = post(f"{anthropic.url}/v1/messages", GOOD, AUTH)

    assert status == 400 and "script exhausted after 2 steps" in body["error"]["message"]
    log = anthropic.requests()
    assert [r["step"] for r in log] == [0, 1, None]
    assert [r["key_headers"] for r in log] == [["x-api-key"], ["authorization"], ["x-api-key"]]
    assert TEST_KEY not in json.dumps(log)
    anthropic.add_steps([ok(message("three"))])
    assert post(f"{anthropic.url}/v1/messages", GOOD, AUTH)[1]["content"][0]["text"] == "three"


def test_ollama_checks_model_stream_and_key(tmp_path):
    answer = chat("hi", model="llama3.2")
    fake = FakeOllama.start(
        tmp_path, {"api_key": "k123", "models": ["llama3.2"], "steps": [{"body": answer}]}
    )
    try:
        url = f"{fake.url}/api/chat"
        body = {"model": "llama3.2", "messages": [{"role": "user", "content": "x"}], "stream": False}
        auth = {"Authorization": "Bearer k123"}

        assert post(url, body, {}) == (401, {"error": "unauthorized"})
        assert post(url, {**body, "model": "qwen"}, auth) == (
            404,
            {"error": 'model "qwen" not found, try pulling it first'},
        )
        assert post(url, {**body, "stream": True}, auth)[0] == 400
        assert post(url, {**body, "model": ""}, auth) == (400, {"error": "model is required"})
        assert post(url, body, auth) == (200, answer)
        assert post(url, body, auth)[0] == 500  # script exhausted
        assert [r["key_ok"] for r in fake.requests()] == [False, True, True, True, True, True]
    finally:
        fake.stop()
