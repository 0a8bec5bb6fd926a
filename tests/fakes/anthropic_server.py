#!/usr/bin/env python3
"""A fake Anthropic Messages API on loopback that replays a script (stdlib only).

Run it from the repository root::

    python -m tests.fakes.anthropic_server --script SCRIPT.json --port 0 --ready-file READY.json \
        [--exit-with-parent] [--verbose]

``FakeAnthropic.start(tmp_path, script)`` does that from a test; pass ``fake.url`` as the SDK's
``base_url``. Script format and request log: see llm_fake.py. The step builders below (`message`,
`text`, `tool_use`, `ok`, `error`, `overloaded`, `rate_limited`, `server_error`) make bodies in the
documented shapes.

What it checks, like the real API, before a step is used:

* ``POST /v1/messages`` only (404 ``not_found_error`` otherwise);
* the script's ``api_key`` as ``x-api-key`` (the documented header) or as ``Authorization: Bearer``
  (what anthropic SDK 2.x sends), else 401 ``authentication_error``; an ``anthropic-version``
  header (400 ``invalid_request_error``);
* the body: ``model``, ``max_tokens`` >= 1, non-empty ``messages`` with roles user/assistant only
  (a "system" role is refused: the system prompt is the top-level ``system``), first turn by the
  user; every ``tool_use`` answered by a ``tool_result`` in the next user turn and placed before
  any other block there; no ``tool_result`` without its ``tool_use``; tools with ``name`` and an
  object ``input_schema``; ``tool_choice`` {"type": "tool"} naming one of the tools;
  ``output_config.format`` shaped {"type": "json_schema", "schema": {...}};
* thinking: when a scripted answer had ``thinking`` blocks next to ``tool_use`` blocks, the
  assistant turn carrying those tool_use ids must come back starting with the same thinking
  blocks (same signatures), as the real API demands when thinking is on.

Answers carry a ``request-id`` header; errors are ``{"type": "error", "error": {"type", "message"},
"request_id"}``. Once the steps run out, requests get a 400 saying so (400 is not retried).
"""

from __future__ import annotations

import itertools
import secrets
import sys
from typing import Any, ClassVar

from tests.fakes.llm_fake import App, FakeLLMServer, FakeState, Incoming, Outcome, serve_main

DEFAULT_MODEL = "claude-sonnet-5-5"
TEST_KEY = "sk-ant-api03-fake-test-key-0123456789"
_message_ids = itertools.count(1)


# ------------------------------------------------------------------------------ step builders


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def thinking(value: str, signature: str | None = None) -> dict[str, Any]:
    """A thinking block; the API signs it, and wants it back unchanged before tool results."""
    return {"type": "thinking", "thinking": value, "signature": signature or f"sig_{secrets.token_hex(8)}"}


def message(
    *content: dict[str, Any] | str,
    model: str = DEFAULT_MODEL,
    stop_reason: str | None = None,
    input_tokens: int = 12,
    output_tokens: int = 6,
    cache_creation_input_tokens: int = 0,
    cache_read_input_tokens: int = 0,
) -> dict[str, Any]:
    """A Messages API response body; stop_reason defaults to "tool_use" when there is a tool_use
    block, else "end_turn"."""
    blocks = [text(c) if isinstance(c, str) else c for c in content]
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {
        "id": f"msg_fake{next(_message_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": cache_creation_input_tokens,
            "cache_read_input_tokens": cache_read_input_tokens,
            "output_tokens": output_tokens,
        },
    }


def ok(body: dict[str, Any], *, headers: dict[str, str] | None = None, delay: float = 0.0) -> dict[str, Any]:
    step: dict[str, Any] = {"status": 200, "body": body}
    if headers:
        step["headers"] = headers
    if delay:
        step["delay"] = delay
    return step


def error_body(error_type: str, message: str) -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": f"req_fake{secrets.token_hex(6)}",
    }


def error(
    status: int, error_type: str, message: str, *, headers: dict[str, str] | None = None, repeat: int = 1
) -> dict[str, Any]:
    step: dict[str, Any] = {"status": status, "body": error_body(error_type, message), "repeat": repeat}
    if headers:
        step["headers"] = headers
    return step


def rate_limited(retry_after: int = 1, *, repeat: int = 1) -> dict[str, Any]:
    return error(
        429,
        "rate_limit_error",
        "This request would exceed the rate limit for your organization of 50 requests per minute.",
        headers={"retry-after": str(retry_after)},
        repeat=repeat,
    )


def overloaded(*, repeat: int = 1, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return error(529, "overloaded_error", "Overloaded", repeat=repeat, headers=headers)


def server_error(*, repeat: int = 1) -> dict[str, Any]:
    return error(500, "api_error", "Internal server error", repeat=repeat)


# ---------------------------------------------------------------------------------------- app


THINKING = ("thinking", "redacted_thinking")


class AnthropicApp(App):
    name = "fake-anthropic"
    server_header = "fake-anthropic"

    def __init__(self, state: FakeState) -> None:
        super().__init__(state)
        self.thinking_of: dict[str, list[str]] = {}

    def extra_headers(self) -> dict[str, str]:
        return {"request-id": f"req_fake{secrets.token_hex(6)}"}

    def key_ok(self, headers: dict[str, str]) -> bool:
        """The key as `x-api-key` (the documented header; anthropic SDK < 1.0) or as
        `Authorization: Bearer` (what the anthropic SDK 2.x sends for an api_key)."""
        expected = self.state.api_key
        if not expected:
            return False
        if "x-api-key" in headers:
            return headers["x-api-key"] == expected
        return headers.get("authorization") == f"Bearer {expected}"

    def handle(self, incoming: Incoming) -> Outcome:
        if incoming.method != "POST" or incoming.path.split("?")[0] != "/v1/messages":
            return Outcome(404, error_body("not_found_error", "Not found"))
        key_ok = self.key_ok(incoming.headers)
        if not key_ok:
            return Outcome(401, error_body("authentication_error", "invalid x-api-key"), key_ok=False)
        if not incoming.headers.get("anthropic-version"):
            return Outcome(
                400,
                error_body("invalid_request_error", "anthropic-version: header is required"),
                key_ok=key_ok,
            )
        problem = validate(incoming.body) or self.check_thinking(incoming.body)
        if problem:
            return Outcome(400, error_body("invalid_request_error", problem), key_ok=key_ok)
        step = self.state.next_step()
        if step is None:
            used = len(self.state.steps)
            return Outcome(
                400,
                error_body("invalid_request_error", f"fake anthropic: script exhausted after {used} steps"),
                key_ok=key_ok,
            )
        index, scripted = step
        self.remember_thinking(scripted.body)
        return Outcome(
            scripted.status, scripted.body, dict(scripted.headers), index, key_ok, delay=scripted.delay
        )

    def remember_thinking(self, body: Any) -> None:
        """Served tool_use ids -> the signatures of the thinking blocks served with them."""
        if not isinstance(body, dict):
            return
        blocks = body.get("content") or []
        signatures = [b.get("signature") or b.get("data") for b in blocks if b.get("type") in THINKING]
        if signatures:
            with self.state.lock:
                for b in blocks:
                    if b.get("type") == "tool_use":
                        self.thinking_of[b["id"]] = signatures

    def check_thinking(self, body: dict[str, Any]) -> str | None:
        """With thinking on, the assistant turn before the last tool results must start with its
        thinking blocks, unchanged (the real API's rule and, nearly, its message)."""
        messages = body["messages"]
        for i in range(len(messages) - 1, -1, -1):
            content = messages[i]["content"]
            if messages[i]["role"] != "assistant" or isinstance(content, str):
                continue
            ids = [b.get("id") for b in content if b.get("type") == "tool_use"]
            with self.state.lock:
                wanted = next((self.thinking_of[x] for x in ids if x in self.thinking_of), None)
            if wanted is None:
                return None
            sent = [b.get("signature") or b.get("data") for b in content if b.get("type") in THINKING]
            if content[0].get("type") not in THINKING:
                return (
                    f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                    f"`{content[0].get('type')}`. When `thinking` is enabled, a final `assistant` message "
                    "must start with a thinking block (preceeding the lastmost set of `tool_use` and "
                    "`tool_result` blocks). We recommend you include thinking blocks from previous turns."
                )
            if sent != wanted:
                return f"messages.{i}.content: thinking blocks cannot be modified (invalid signature)"
            return None
        return None


def validate(body: Any) -> str | None:
    """The first problem the real API would report for this body, or None."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return "max_tokens: Field required (an integer >= 1)"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        return "system: Input should be a string or a list of text blocks"
    pending: set[str] = set()
    for i, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        if i == 0 and role != "user":
            return 'messages: first message must use the "user" role'
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list) or not blocks:
            return f"messages.{i}.content: must be a non-empty string or list of content blocks"
        if role == "user":
            results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
            leading = list(itertools.takewhile(lambda b: b.get("type") == "tool_result", blocks))
            if len(leading) != len(results):
                return f"messages.{i}: tool_result blocks must come first in the user message content"
            unknown = [r for r in results if r not in pending]
            if unknown:
                return (
                    f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{unknown[0]}. Each `tool_result` block must have a corresponding `tool_use` "
                    "block in the previous message."
                )
            missing = pending - set(results)
            if missing:
                return (
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
                    f"after: {sorted(missing)[0]}. Each `tool_use` block must have a corresponding "
                    "`tool_result` block in the next message."
                )
            pending = set()
            for b in blocks:
                if b.get("type") == "text" and not b.get("text"):
                    return f"messages.{i}: text content blocks must be non-empty"
        else:
            if pending:
                return (
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after"
                )
            for b in blocks:
                if b.get("type") == "text" and not b.get("text"):
                    return f"messages.{i}: text content blocks must be non-empty"
            pending = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
    tools = body.get("tools")
    names: set[str] = set()
    if tools is not None:
        if not isinstance(tools, list):
            return "tools: Input should be a valid list"
        for j, tool in enumerate(tools):
            if not isinstance(tool, dict) or not tool.get("name"):
                return f"tools.{j}.name: Field required"
            schema = tool.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                return f"tools.{j}.input_schema.type: Input should be 'object'"
            names.add(tool["name"])
    output_config = body.get("output_config")
    if output_config is not None:
        if not isinstance(output_config, dict):
            return "output_config: Input should be an object"
        fmt = output_config.get("format")
        if fmt is not None and (
            not isinstance(fmt, dict)
            or fmt.get("type") != "json_schema"
            or not isinstance(fmt.get("schema"), dict)
        ):
            return 'output_config.format: expected {"type": "json_schema", "schema": {...}}'
    choice = body.get("tool_choice")
    if choice is not None:
        kind = choice.get("type") if isinstance(choice, dict) else None
        if kind not in ("auto", "any", "tool", "none"):
            return "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"
        if kind in ("any", "tool") and not names:
            return "tool_choice: may only be specified while providing tools"
        if kind == "tool" and choice.get("name") not in names:
            return f"tool_choice: tool {choice.get('name')!r} not found in tools"
    return None


def main(argv: list[str] | None = None) -> int:
    return serve_main(AnthropicApp, "Fake Anthropic Messages API (loopback, scripted).", argv)


class FakeAnthropic(FakeLLMServer):
    """``FakeAnthropic.start(tmp_path, script_or_steps)`` -> ``.url``, ``.api_key``,
    ``.requests()``, ``.add_steps()``, ``.stop()``; a context manager."""

    module: ClassVar[str] = "tests.fakes.anthropic_server"
    label: ClassVar[str] = "fake-anthropic"
    default_key: ClassVar[str | None] = TEST_KEY

    @classmethod
    def start(cls, *args: Any, **kwargs: Any) -> FakeAnthropic:
        return super().start(*args, **kwargs)


if __name__ == "__main__":
    sys.exit(main())
