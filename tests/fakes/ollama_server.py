#!/usr/bin/env python3
"""A fake Ollama server on loopback that replays a script for ``POST /api/chat`` (stdlib only).

Run it from the repository root::

    python -m tests.fakes.ollama_server --script SCRIPT.json --port 0 --ready-file READY.json \
        [--exit-with-parent] [--verbose]

``FakeOllama.start(tmp_path, script)`` does that from a test; pass ``fake.url`` as the SDK's
``host``. Script format and request log: see llm_fake.py; builders below: `chat` (a non-streaming
/api/chat response), `tool_call`, `ok`, `error`.

Checks, like the real server, before a step is used:

* ``POST /api/chat`` (and ``GET /api/version``); anything else is a 404 ``{"error": ...}``;
* when the script has an ``api_key`` (a hosted Ollama): ``Authorization: Bearer <key>``, else 401
  ``{"error": "unauthorized"}``. Without one, no key is expected (``key_ok`` is null unless a
  bearer token was sent anyway);
* the body: ``model`` (400 "model is required"; with a ``models`` list in the script, other names
  get 404 'model "x" not found, try pulling it first'), ``messages`` with roles system/user/
  assistant/tool, ``tools`` as {"type": "function", "function": {"name", ...}}, ``format`` "json" or
  a schema object, and ``stream`` false (this fake scripts whole answers only).

Errors are ``{"error": "<message>"}``, Ollama's shape. When the steps run out: 500 saying so.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Any, ClassVar

from tests.fakes.llm_fake import App, FakeLLMServer, Incoming, Outcome, serve_main

DEFAULT_MODEL = "qwen2.5-coder:7b"


# ------------------------------------------------------------------------------ step builders


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": arguments}}


def chat(
    content: str = "",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    model: str = DEFAULT_MODEL,
    done_reason: str = "stop",
    prompt_eval_count: int = 26,
    eval_count: int = 12,
) -> dict[str, Any]:
    """An /api/chat response body with stream=false, as documented."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "model": model,
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "message": message,
        "done_reason": done_reason,
        "done": True,
        "total_duration": 4883583458,
        "load_duration": 1334875,
        "prompt_eval_count": prompt_eval_count,
        "prompt_eval_duration": 342546000,
        "eval_count": eval_count,
        "eval_duration": 4535599000,
    }


def ok(body: dict[str, Any], *, delay: float = 0.0) -> dict[str, Any]:
    step: dict[str, Any] = {"status": 200, "body": body}
    if delay:
        step["delay"] = delay
    return step


def error(status: int, message: str, *, repeat: int = 1) -> dict[str, Any]:
    return {"status": status, "body": {"error": message}, "repeat": repeat}


# ---------------------------------------------------------------------------------------- app


class OllamaApp(App):
    name = "fake-ollama"
    server_header = "fake-ollama"

    def handle(self, incoming: Incoming) -> Outcome:
        path = incoming.path.split("?")[0]
        key_ok = self.key_ok(incoming.headers.get("authorization"))
        if self.state.api_key and not key_ok:
            return Outcome(401, {"error": "unauthorized"}, key_ok=key_ok)
        if incoming.method == "GET" and path == "/api/version":
            return Outcome(200, {"version": "0.6.0"}, key_ok=key_ok)
        if incoming.method != "POST" or path != "/api/chat":
            return Outcome(404, {"error": "404 page not found"}, key_ok=key_ok)
        status, problem = validate(incoming.body, self.state.script.get("models"))
        if problem:
            return Outcome(status, {"error": problem}, key_ok=key_ok)
        step = self.state.next_step()
        if step is None:
            return Outcome(
                500,
                {"error": f"fake ollama: script exhausted after {len(self.state.steps)} steps"},
                key_ok=key_ok,
            )
        index, scripted = step
        return Outcome(
            scripted.status, scripted.body, dict(scripted.headers), index, key_ok, delay=scripted.delay
        )

    def key_ok(self, authorization: str | None) -> bool | None:
        if not self.state.api_key:
            return None if authorization is None else False
        return authorization == f"Bearer {self.state.api_key}"


def validate(body: Any, models: list[str] | None) -> tuple[int, str | None]:
    if not isinstance(body, dict):
        return 400, "invalid request body"
    model = body.get("model")
    if not isinstance(model, str) or not model:
        return 400, "model is required"
    if models is not None and model not in models:
        return 404, f'model "{model}" not found, try pulling it first'
    if body.get("stream") is not False:
        return 400, 'fake ollama: scripted answers need "stream": false'
    messages = body.get("messages")
    if not isinstance(messages, list):
        return 400, "messages must be a list"
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in ("system", "user", "assistant", "tool"):
            return 400, f"messages[{i}]: invalid role"
        for call in msg.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("arguments"), dict):
                return 400, f"messages[{i}]: tool_calls need function.name and function.arguments (object)"
    for j, tool in enumerate(body.get("tools") or ()):
        function = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type") != "function" or not isinstance(function, dict) or not function.get("name"):
            return 400, f'tools[{j}]: expected {{"type": "function", "function": {{"name", ...}}}}'
    fmt = body.get("format")
    if fmt is not None and fmt != "json" and fmt != "" and not isinstance(fmt, dict):
        return 400, 'invalid format: expected "json" or a JSON schema'
    return 200, None


def main(argv: list[str] | None = None) -> int:
    return serve_main(OllamaApp, "Fake Ollama chat API (loopback, scripted).", argv)


class FakeOllama(FakeLLMServer):
    """``FakeOllama.start(tmp_path, script_or_steps)`` -> ``.url``, ``.requests()``, ``.add_steps()``,
    ``.stop()``; a context manager. No key unless the script sets ``api_key``."""

    module: ClassVar[str] = "tests.fakes.ollama_server"
    label: ClassVar[str] = "fake-ollama"
    default_key: ClassVar[str | None] = None

    @classmethod
    def start(cls, *args: Any, **kwargs: Any) -> FakeOllama:
        return super().start(*args, **kwargs)


if __name__ == "__main__":
    sys.exit(main())
