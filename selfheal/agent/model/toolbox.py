"""The frame of a ReAct loop's tool use: tools, what they observe, and the box that calls them.

A `Tool` is a `ToolSpec` (name, description, JSON Schema of its arguments) and `run(arguments)`.
The `Toolbox` stands between the model and the tools: it checks a call's arguments against the
tool's schema (jsonschema) and answers a bad call with what was wrong and the expected shape, an
unknown tool with the names of the real ones, a tool that raised with a message; it caps every
observation (head and tail around a "… N bytes cut …" line) and logs each call, timed.

Given a token budget (`call(..., max_tokens=)`: the debugger's share of a small model's context), a
longer observation is fitted first: by its tool's own `shorten`, which knows what matters in its
output (a traceback's project frames, the failing tests), or else by its kind (messagefit.py).

Whatever goes wrong is an `Observation` with `ok=False` written for the model, never an exception.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from selfheal.agent.model.llm.base import ToolCall, ToolSpec
from selfheal.agent.model.messagefit import shorten_observation
from selfheal.agent.model.tokencount import CountFn, estimate_tokens

if TYPE_CHECKING:  # imported where used: a heal without a model checks no answer or tool call
    import jsonschema

OUTPUT_LIMIT = 8 * 1024  # bytes of one observation's text


@dataclass(frozen=True)
class Observation:
    """What the model reads after a tool call; `data` is the same, structured, for the program."""

    text: str
    ok: bool = True
    data: dict[str, Any] | None = None
    # (max_tokens, count) -> the text within max_tokens, as the tool that made it would shorten it
    shorten: Callable[[int, CountFn], str] | None = field(default=None, compare=False, repr=False)

    def fitted(self, max_tokens: int, count: CountFn = estimate_tokens) -> tuple[str, bool]:
        """The text within `max_tokens` tokens, and whether it had to be shortened."""
        if count(self.text) <= max_tokens:
            return self.text, False
        if self.shorten is not None:
            return self.shorten(max_tokens, count), True
        return shorten_observation(self.text, max_tokens, count), True


class Tool(Protocol):
    spec: ToolSpec

    def run(self, arguments: dict[str, Any]) -> Observation: ...


@dataclass(frozen=True)
class CallRecord:
    tool: str
    arguments: dict[str, Any]
    ok: bool
    duration_s: float
    truncated: bool
    fitted: bool = False  # shortened to a token budget

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "ok": self.ok,
            "duration_s": round(self.duration_s, 3),
            "truncated": self.truncated,
            "fitted": self.fitted,
        }


# -- the toolbox --------------------------------------------------------------------------------
class Toolbox:
    def __init__(self, tools: Iterable[Tool], *, output_limit: int = OUTPUT_LIMIT) -> None:
        import jsonschema

        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, Any] = {}
        for tool in tools:
            name = tool.spec.name
            if name in self._tools:
                raise ValueError(f"two tools are named {name!r}")
            validator_class = jsonschema.validators.validator_for(tool.spec.parameters)
            validator_class.check_schema(tool.spec.parameters)
            self._tools[name] = tool
            self._validators[name] = validator_class(tool.spec.parameters)
        self.output_limit = output_limit
        self.log: list[CallRecord] = []

    @property
    def specs(self) -> list[ToolSpec]:
        return [tool.spec for tool in self._tools.values()]

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def call(
        self, call: ToolCall, *, max_tokens: int | None = None, count: CountFn = estimate_tokens
    ) -> Observation:
        """Run one call; with `max_tokens`, its observation's text fits in that many tokens."""
        started = time.monotonic()
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        tool = self._tools.get(call.name)
        if tool is None:
            observation = Observation(
                f"unknown tool `{call.name}`; the tools are: {', '.join(self._tools)}", ok=False
            )
        elif not isinstance(call.arguments, dict):
            observation = Observation(
                f"the arguments of {call.name} must be a JSON object; expected {describe(tool.spec)}",
                ok=False,
            )
        elif problem := self._check(tool.spec, arguments):
            observation = Observation(problem, ok=False)
        else:
            try:
                observation = tool.run(dict(arguments))
            except Exception as exc:  # a tool must not end the loop; the trace keeps the record
                observation = Observation(
                    f"{call.name} failed inside selfheal ({type(exc).__name__}: {exc}); try another tool",
                    ok=False,
                )
        text, fitted = observation.text, False
        if max_tokens is not None:
            text, fitted = observation.fitted(max_tokens, count)
        text, cut = cap_text(text, self.output_limit)
        observation = replace(observation, text=text, shorten=None)
        self.log.append(
            CallRecord(
                call.name, dict(arguments), observation.ok, time.monotonic() - started, cut > 0, fitted
            )
        )
        return observation

    def _check(self, spec: ToolSpec, arguments: dict[str, Any]) -> str | None:
        import jsonschema

        errors = list(self._validators[spec.name].iter_errors(arguments))
        if not errors:
            return None
        error = jsonschema.exceptions.best_match(errors)
        properties = spec.parameters.get("properties", {})
        if error.validator == "required":
            missing = [p for p in error.validator_value if p not in error.instance]
            problem = f"missing required argument `{missing[0] if missing else '?'}`"
        elif error.validator == "additionalProperties" and not error.path:
            extra = sorted(set(arguments) - set(properties))
            problem = f"unknown argument `{extra[0] if extra else '?'}`"
        else:
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
            problem = f"argument `{where.lstrip('.') or '(all)'}`: {_short_message(error)}"
        lines = [f"bad arguments for {spec.name}: {problem}", f"expected {describe(spec)}"]
        for name, schema in properties.items():
            if schema.get("description"):
                lines.append(f"  {name}: {schema['description']}")
        return "\n".join(lines)


def _short_message(error: jsonschema.ValidationError) -> str:
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def describe(spec: ToolSpec) -> str:
    """A tool's call shape in one line: `run_snippet(code: string, timeout_s?: number 0..30)`."""
    schema = spec.parameters
    required = set(schema.get("required", ()))
    parts = []
    for name, prop in schema.get("properties", {}).items():
        mark = "" if name in required else "?"
        parts.append(f"{name}{mark}: {_describe_type(prop)}")
    return f"{spec.name}({', '.join(parts)})"


def _describe_type(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " | ".join(json.dumps(v) for v in prop["enum"])
    kind = prop.get("type", "any")
    if isinstance(kind, list):
        kind = " | ".join(kind)
    if kind == "array":
        text = f"list[{_describe_type(prop.get('items', {}))}]"
        if "maxItems" in prop:
            text += (
                f" (1..{prop['maxItems']} items)" if prop.get("minItems") else f" (≤{prop['maxItems']} items)"
            )
        return text
    low, high = prop.get("minimum", prop.get("exclusiveMinimum")), prop.get("maximum")
    if low is not None and high is not None:
        return f"{kind} {low}..{high}"
    if high is not None:
        return f"{kind} ≤{high}"
    if low is not None:
        return f"{kind} ≥{low}"
    return str(kind)


def cap_text(text: str, limit: int) -> tuple[str, int]:
    """`text` within `limit` UTF-8 bytes: its head and tail around a "… N bytes cut …" line,
    cut at line boundaries when one is near. Returns the text and how many bytes were cut."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, 0
    keep = max(limit - 48, 16)  # room for the marker line
    head, tail = data[: keep // 2], data[len(data) - (keep - keep // 2) :]
    newline = head.rfind(b"\n")
    if newline >= len(head) // 2:
        head = head[: newline + 1]
    newline = tail.find(b"\n")
    if 0 <= newline < len(tail) // 2:
        tail = tail[newline + 1 :]
    cut = len(data) - len(head) - len(tail)
    joint = "" if head.endswith(b"\n") else "\n"
    marker = f"{joint}… {cut} bytes cut …\n"
    return head.decode("utf-8", "ignore") + marker + tail.decode("utf-8", "ignore"), cut
