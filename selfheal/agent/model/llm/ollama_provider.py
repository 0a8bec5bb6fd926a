"""A local (or hosted) Ollama through the official `ollama` SDK: POST /api/chat, `stream=False`.

* System messages stay in `messages` with role "system" (Ollama's chat API takes them there).
* Tools go as {"type": "function", "function": {name, description, parameters}}; a tool result is
  a {"role": "tool", "content", "tool_name"} message. Ollama's tool calls carry no id, so ids are
  made up here ("ollama-<n>") and mapped back to the tool's name on the way in.
* A `schema` is sent as `format` (Ollama's structured outputs); the answer is the message content.
* `max_tokens` is `options.num_predict`; `done_reason` "length" becomes stop_reason "max_tokens".
* Usage: `prompt_eval_count` in, `eval_count` out; cost 0 unless `prices` names the model.
* Retries: the SDK has none; the httpx transport retries failed connections `max_retries` times.
  HTTP errors (Ollama answers {"error": "..."}) become ProviderError subclasses by status.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from selfheal.agent.model.llm.accounting import priced_usage
from selfheal.agent.model.llm.base import Message, Reply, ToolCall, ToolSpec
from selfheal.agent.model.llm.errors import redact, status_error, unavailable
from selfheal.agent.model.llm.settings import ProviderSettings, Resolved

_ids = itertools.count(1)


class OllamaProvider:
    name = "ollama"

    def __init__(self, resolved: Resolved, settings: ProviderSettings, api_key: str | None) -> None:
        import httpx
        import ollama

        self.model = resolved.model
        self.base_url = resolved.base_url
        self._settings = settings
        self._secret = api_key
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self._client = ollama.Client(
            host=resolved.base_url,
            timeout=settings.timeout,
            headers=headers,
            transport=httpx.HTTPTransport(retries=settings.max_retries),
        )

    def __repr__(self) -> str:
        return f"OllamaProvider(model={self.model!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        self._client.close()

    @property
    def context_tokens(self) -> int | None:
        """num_ctx as configured; None when the server decides (its default, OLLAMA_CONTEXT_LENGTH
        or the model file's), which this client cannot know."""
        return self._settings.context_tokens

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int,
    ) -> Reply:
        request = build_chat_request(
            messages,
            tools=tools,
            schema=schema,
            max_tokens=max_tokens,
            model=self.model,
            settings=self._settings,
        )
        response = self._call(request)
        return parse_chat_response(
            response.model_dump(mode="json"), settings=self._settings, model=self.model
        )

    def _call(self, request: dict[str, Any]) -> Any:
        import httpx
        import ollama

        try:
            return self._client.chat(**request)
        except ollama.ResponseError as exc:
            raise status_error(
                self.name, exc.status_code, detail=str(exc.error), secret=self._secret
            ) from None
        except httpx.TimeoutException:
            raise unavailable(
                self.name, f"timed out after {self._settings.timeout:g}s", self.base_url, secret=self._secret
            ) from None
        except (ConnectionError, httpx.TransportError) as exc:
            detail = redact(str(exc), self._secret)
            raise unavailable(
                self.name, f"cannot connect ({detail})", self.base_url, secret=self._secret
            ) from None


def build_chat_request(
    messages: list[Message],
    *,
    tools: list[ToolSpec] | None,
    schema: dict[str, Any] | None,
    max_tokens: int,
    model: str,
    settings: ProviderSettings,
) -> dict[str, Any]:
    """Keyword arguments of `ollama.Client.chat` for one non-streaming call."""
    options: dict[str, Any] = {"num_predict": max_tokens}
    if settings.context_tokens is not None:
        options["num_ctx"] = settings.context_tokens
    if settings.temperature is not None:
        options["temperature"] = settings.temperature
    request: dict[str, Any] = {
        "model": model,
        "messages": to_ollama_messages(messages),
        "stream": False,
        "options": options,
    }
    if tools:
        request["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            }
            for t in tools
        ]
    if schema is not None:
        request["format"] = schema
    return request


def to_ollama_messages(messages: list[Message]) -> list[dict[str, Any]]:
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            entry: dict[str, Any] = {"role": "tool", "content": message.content}
            name = names.get(message.tool_call_id or "")
            if name:
                entry["tool_name"] = name
            out.append(entry)
        elif message.role in ("system", "user", "assistant"):
            entry = {"role": message.role, "content": message.content}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {"function": {"name": call.name, "arguments": call.arguments}}
                    for call in message.tool_calls
                ]
                names.update({call.id: call.name for call in message.tool_calls})
            out.append(entry)
        else:
            raise ValueError(f"unknown message role {message.role!r}")
    return out


def parse_chat_response(body: Mapping[str, Any], *, settings: ProviderSettings, model: str = "") -> Reply:
    message = body.get("message") or {}
    calls = tuple(
        ToolCall(
            call.get("id") or f"ollama-{next(_ids)}",
            call["function"]["name"],
            dict(call["function"].get("arguments") or {}),
        )
        for call in message.get("tool_calls") or ()
    )
    done_reason = body.get("done_reason") or ""
    if done_reason == "length":
        stop_reason = "max_tokens"
    elif done_reason == "stop":
        stop_reason = "tool_use" if calls else "end_turn"
    else:
        stop_reason = done_reason
    model = body.get("model") or model
    return Reply(
        text=message.get("content") or "",
        tool_calls=calls,
        usage=priced_usage(
            settings.price_for(model),
            model,
            body.get("prompt_eval_count") or 0,
            body.get("eval_count") or 0,
            warn_unpriced=False,
        ),
        model=model,
        stop_reason=stop_reason,
    )
