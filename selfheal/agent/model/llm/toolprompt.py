"""Tool use for models without a native tool API (llama.cpp): described in the prompt, answered in JSON.

The model is told to answer with exactly one JSON object, either

    {"tool_calls": [{"name": "<tool>", "arguments": {...}}, ...]}     to call tools, or
    {"answer": <text, or a value matching the schema>}                 to answer.

`answer_schema` is that contract as a JSON Schema, for grammar-constrained decoding; `parse_answer`
reads it back and tolerates what small models do without a grammar (code fences, prose around the
object, a bare {"name", "arguments"} object, arguments as a JSON string). Earlier tool calls and
results are rendered into the chat as plain assistant/user turns, since many chat templates have
no "tool" role. Pure functions, no model needed.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from selfheal.agent.model.llm.base import Message, ToolCall, ToolSpec

_ids = itertools.count(1)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def tool_instructions(tools: list[ToolSpec], schema: dict[str, Any] | None) -> str:
    lines = [
        "You can call tools. Answer with exactly one JSON object and nothing else.",
        'To call tools: {"tool_calls": [{"name": "<tool name>", "arguments": {<arguments>}}]}',
    ]
    if schema is None:
        lines.append('To give your final answer: {"answer": "<your answer as text>"}')
    else:
        lines.append('To give your final answer: {"answer": <a JSON value matching this schema>}')
        lines.append("Answer schema: " + json.dumps(schema, sort_keys=True))
    lines.append("Tools:")
    for tool in tools:
        lines.append(f"- {tool.name}: {tool.description}")
        lines.append("  arguments schema: " + json.dumps(tool.parameters, sort_keys=True))
    return "\n".join(lines)


def answer_schema(tools: list[ToolSpec] | None, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The JSON Schema the whole answer must match: None for free text (no tools, no schema)."""
    if not tools:
        return schema
    call_shapes = [
        {
            "type": "object",
            "properties": {"name": {"const": tool.name}, "arguments": tool.parameters or {"type": "object"}},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    calls = {
        "type": "object",
        "properties": {
            "tool_calls": {
                "type": "array",
                "minItems": 1,
                "items": call_shapes[0] if len(call_shapes) == 1 else {"anyOf": call_shapes},
            }
        },
        "required": ["tool_calls"],
        "additionalProperties": False,
    }
    answer = {
        "type": "object",
        "properties": {"answer": schema if schema is not None else {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    return {"anyOf": [calls, answer]}


def render_messages(
    messages: list[Message], tools: list[ToolSpec] | None, schema: dict[str, Any] | None
) -> list[dict[str, str]]:
    """OpenAI-style chat messages (system/user/assistant only) with the tool contract in the system
    turn and earlier tool calls/results as text. Consecutive turns of one role are merged."""
    system: list[str] = [m.content for m in messages if m.role == "system" and m.content]
    if tools:
        system.append(tool_instructions(tools, schema))
    elif schema is not None:
        system.append(
            "Answer with one JSON object matching this schema: " + json.dumps(schema, sort_keys=True)
        )
    names: dict[str, str] = {}
    out: list[dict[str, str]] = [{"role": "system", "content": "\n\n".join(system)}] if system else []

    def add(role: str, content: str) -> None:
        if out and out[-1]["role"] == role and role != "system":
            out[-1]["content"] += "\n\n" + content
        else:
            out.append({"role": role, "content": content})

    for message in messages:
        if message.role == "system":
            continue
        if message.role == "user":
            add("user", message.content)
        elif message.role == "assistant":
            if message.tool_calls:
                names.update({call.id: call.name for call in message.tool_calls})
                calls = [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]
                add("assistant", json.dumps({"tool_calls": calls}, ensure_ascii=False))
            else:
                add("assistant", json.dumps({"answer": message.content}) if tools else message.content)
        elif message.role == "tool":
            name = names.get(message.tool_call_id or "", "tool")
            add("user", f"Result of {name} (call {message.tool_call_id}):\n{message.content}")
        else:
            raise ValueError(f"unknown message role {message.role!r}")
    return out


def parse_answer(
    raw: str, tools: list[ToolSpec] | None, schema: dict[str, Any] | None
) -> tuple[str, tuple[ToolCall, ...]]:
    """(text, tool calls) from a model's raw answer. Calls to tools that were not offered are
    dropped; an answer that is no recognizable JSON is returned as text, unchanged."""
    known = {tool.name for tool in tools or ()}
    obj = extract_json(raw)
    if isinstance(obj, dict) and known:
        items: Any = obj.get("tool_calls")
        if items is None and "name" in obj and ("arguments" in obj or "parameters" in obj):
            items = [obj]
        if isinstance(items, dict):
            items = [items]
        calls = []
        for item in items if isinstance(items, list) else ():
            call = _tool_call(item, known)
            if call is not None:
                calls.append(call)
        if calls:
            return "", tuple(calls)
    if isinstance(obj, dict) and "answer" in obj:
        answer = obj["answer"]
        if isinstance(answer, str) and schema is None:
            return answer, ()
        return json.dumps(answer, ensure_ascii=False), ()
    return raw.strip(), ()


def extract_json(raw: str) -> Any:
    """The first JSON value in `raw`: the whole text, a fenced block, or the first {...} in it."""
    text = raw.strip()
    candidates = [text, *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            pass
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        return value
    return None


def _tool_call(item: Any, known: set[str]) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    if "function" in item and isinstance(item["function"], dict):  # OpenAI-shaped
        item = item["function"]
    name = item.get("name")
    if name not in known:
        return None
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(arguments, dict):
        return None
    return ToolCall(f"llamacpp-{next(_ids)}", name, arguments)
