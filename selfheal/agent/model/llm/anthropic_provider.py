"""Claude through the official `anthropic` SDK (Messages API, native tool use).

* System messages go to the top-level `system` parameter (joined, in order).
* A tool result is a `tool_result` block in a user turn; consecutive tool results (and a user
  message right after them) share one user turn, results first, as the API requires.
* An assistant turn made by this provider goes back verbatim (`Message.native`): Claude models
  that think (adaptive thinking is on by default from Claude Sonnet 5.5) refuse tool results
  whose assistant turn lost its signed thinking blocks.
* A `schema` is answered, by `settings.schema_via`:
  - "output_format" (default): structured outputs, `output_config` {"format": {"type":
    "json_schema", "schema": ...}} with the schema made strict by the SDK's `transform_schema`;
    the JSON comes back as text. Works with tools too (the model calls tools or answers).
  - "forced_tool": a tool "answer" whose `input_schema` is the schema, forced with `tool_choice`
    {"type": "tool"} ({"type": "any"} when other tools are offered); its input becomes
    `Reply.text`. For models before Claude 4.5; Claude Sonnet/Opus 5.5 refuse forced tool choice.
  A schema that is not an object is wrapped as {"value": schema} and unwrapped in the answer.
* Retries: the SDK's (`max_retries`, exponential backoff, honours `retry-after`; 408/409/429/5xx
  and 529). What is left after them becomes a ProviderError naming status and provider.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from selfheal.agent.model.llm.accounting import priced_usage
from selfheal.agent.model.llm.base import Message, Reply, ToolCall, ToolSpec
from selfheal.agent.model.llm.errors import parse_retry_after, redact, status_error, unavailable
from selfheal.agent.model.llm.settings import ProviderSettings, Resolved

ANSWER_TOOL = "answer"
_ANSWER_DESCRIPTION = "Give your final answer. Its input must match the schema exactly."
_WRAP_KEY = "value"


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, resolved: Resolved, settings: ProviderSettings, api_key: str) -> None:
        import anthropic

        self.model = resolved.model
        self.base_url = resolved.base_url
        self._settings = settings
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=resolved.base_url,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        self._client.close()

    @property
    def context_tokens(self) -> int | None:
        """Only when configured: Claude's windows (200k tokens and more) are the API's to enforce."""
        return self._settings.context_tokens

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int,
    ) -> Reply:
        request = build_request(
            messages,
            tools=tools,
            schema=schema,
            max_tokens=max_tokens,
            model=self.model,
            schema_via=self._settings.schema_via,
        )
        if self._settings.temperature is not None:
            request["temperature"] = self._settings.temperature
        message = self._call(request)
        return parse_message(
            message.model_dump(mode="json"),
            settings=self._settings,
            schema=schema,
            model=self.model,
        )

    def _call(self, request: dict[str, Any]) -> Any:
        import anthropic

        secret = self._client.api_key
        try:
            return self._client.messages.create(**request)
        except anthropic.APIStatusError as exc:
            response = exc.response
            retries = response.request.headers.get("x-stainless-retry-count")
            raise status_error(
                self.name,
                exc.status_code,
                error_type=_text(exc.type) or _body_field(exc.body, "type"),
                detail=_text(exc.api_message) or _body_field(exc.body, "message"),
                retry_after=parse_retry_after(response.headers),
                request_id=exc.request_id,
                attempts=int(retries) + 1 if retries and retries.isdigit() else None,
                secret=secret,
            ) from None
        except anthropic.APITimeoutError:
            raise unavailable(
                self.name, f"timed out after {self._settings.timeout:g}s", self.base_url, secret=secret
            ) from None
        except anthropic.APIConnectionError as exc:
            raise unavailable(
                self.name, f"cannot connect ({redact(str(exc), secret)})", self.base_url, secret=secret
            ) from None


def build_request(
    messages: list[Message],
    *,
    tools: list[ToolSpec] | None,
    schema: dict[str, Any] | None,
    max_tokens: int,
    model: str,
    schema_via: str = "output_format",
) -> dict[str, Any]:
    """The keyword arguments of `messages.create` (= the JSON body) for one call."""
    system, turns = to_anthropic_messages(messages)
    request: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": turns}
    if system:
        request["system"] = system
    tool_params = [
        {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools or ()
    ]
    if schema is not None and schema_via == "forced_tool":
        if any(t["name"] == ANSWER_TOOL for t in tool_params):
            raise ValueError(f"a tool may not be called {ANSWER_TOOL!r} when a schema is given")
        tool_params.append(
            {"name": ANSWER_TOOL, "description": _ANSWER_DESCRIPTION, "input_schema": object_schema(schema)}
        )
        request["tool_choice"] = {"type": "any"} if tools else {"type": "tool", "name": ANSWER_TOOL}
    elif schema is not None:
        from anthropic import transform_schema

        request["output_config"] = {
            "format": {"type": "json_schema", "schema": transform_schema(object_schema(schema))}
        }
    if tool_params:
        request["tools"] = tool_params
    return request


def object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`input_schema` must describe an object; any other schema is wrapped as {"value": ...}."""
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {_WRAP_KEY: schema}, "required": [_WRAP_KEY]}


def to_anthropic_messages(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    system_parts: list[str] = []
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for message in messages:
        if message.role == "system":
            if message.content:
                system_parts.append(message.content)
        elif message.role == "user":
            add("user", [{"type": "text", "text": message.content}] if message.content else [])
        elif message.role == "assistant" and message.native:
            add("assistant", [dict(block) for block in message.native])
        elif message.role == "assistant":
            blocks: list[dict[str, Any]] = []
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks += [
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                for call in message.tool_calls
            ]
            add("assistant", blocks)
        elif message.role == "tool":
            if not message.tool_call_id:
                raise ValueError("a tool message needs the tool_call_id it answers")
            add(
                "user",
                [{"type": "tool_result", "tool_use_id": message.tool_call_id, "content": message.content}],
            )
        else:
            raise ValueError(f"unknown message role {message.role!r}")
    # tool_result blocks must come first in their user turn
    for turn in turns:
        if turn["role"] == "user":
            turn["content"].sort(key=lambda block: block["type"] != "tool_result")
    return "\n\n".join(system_parts), turns


def parse_message(
    body: Mapping[str, Any],
    *,
    settings: ProviderSettings,
    schema: dict[str, Any] | None,
    model: str = "",
) -> Reply:
    """A Messages API response body -> Reply (text, tool calls, usage with cost, stop_reason)."""
    forced = schema is not None and settings.schema_via == "forced_tool"
    texts: list[str] = []
    calls: list[ToolCall] = []
    answer: Any = None
    answered = False
    blocks = list(body.get("content") or ())
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text") or "")
        elif kind == "tool_use":
            if forced and block.get("name") == ANSWER_TOOL:
                answer, answered = block.get("input"), True
            else:
                calls.append(ToolCall(block["id"], block["name"], dict(block.get("input") or {})))
    text = "".join(texts)
    stop_reason = body.get("stop_reason") or ""
    raw_text = None
    wrapped = schema is not None and schema.get("type") != "object"
    if answered:
        if wrapped and isinstance(answer, dict):
            answer = answer.get(_WRAP_KEY)
        raw_text, text = text or None, json.dumps(answer, ensure_ascii=False)
        if stop_reason == "tool_use" and not calls:
            stop_reason = "end_turn"
    elif schema is not None and wrapped and not calls:
        try:
            value = json.loads(text)
        except ValueError:
            value = None  # truncated or not JSON: left as it came, for the caller's salvage
        if isinstance(value, dict) and _WRAP_KEY in value:
            raw_text, text = text, json.dumps(value[_WRAP_KEY], ensure_ascii=False)
    # Keep the turn verbatim when it holds more than text and tool calls (thinking blocks).
    native: tuple[dict[str, Any], ...] = ()
    if any(b.get("type") not in ("text", "tool_use") for b in blocks):
        native = tuple({k: v for k, v in b.items() if v is not None} for b in blocks)
    model = body.get("model") or model
    usage = body.get("usage") or {}
    return Reply(
        text=text,
        tool_calls=tuple(calls),
        usage=priced_usage(
            settings.price_for(model),
            model,
            usage.get("input_tokens") or 0,
            usage.get("output_tokens") or 0,
            cache_write=usage.get("cache_creation_input_tokens") or 0,
            cache_read=usage.get("cache_read_input_tokens") or 0,
        ),
        model=model,
        stop_reason=stop_reason,
        raw_text=raw_text,
        native=native,
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _body_field(body: object, key: str) -> str | None:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get(key), str):
            return error[key]
    return None
