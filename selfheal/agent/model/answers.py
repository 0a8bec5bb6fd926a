"""Structured answers: a model's text -> a value its role's JSON Schema accepts, or feedback for it.

`parse_answer` reads strictly first. When that fails it tries, in this order, keeping every step
that changed the text (each runs only while the text still does not parse):

1. `capped`            more than MAX_ANSWER_CHARS characters: only the first MAX_ANSWER_CHARS are read;
2. `extracted`         the JSON inside a ```json fence, or the first balanced {...} in prose;
3. `trailing_commas`   `[1, 2,]` -> `[1, 2]` (outside strings);
4. `closed_truncation` an answer cut off mid-way: open strings and brackets closed, an incomplete
                       last item dropped;
5. `coerced`           (on a parsed value the schema rejects) "0.8" -> 0.8, "true" -> true,
                       3.0 -> 3, "Accept" -> "accept" (enum), item -> [item], 12 -> "12", a JSON
                       object sent as a string -> the object, keys dropped where
                       additionalProperties is false.

What is still wrong then raises `AnswerError`, whose `feedback` names the failing path, why, and
the expected shape, written for the model. `ask_structured` asks, parses, retries once with that
feedback, and otherwise returns None with a record marked degraded: a bad answer never raises
(provider errors do).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from selfheal.agent.exceptions import AnswerError
from selfheal.agent.model.llm.base import Message, Provider, Usage

MAX_ANSWER_CHARS = 200_000
ECHO_CHARS = 4_000  # how much of a rejected answer goes back to the model with the feedback

CAPPED, EXTRACTED, TRAILING_COMMAS, CLOSED_TRUNCATION, COERCED = (
    "capped",
    "extracted",
    "trailing_commas",
    "closed_truncation",
    "coerced",
)


@dataclass(frozen=True)
class ParsedAnswer:
    value: Any
    degraded_steps: tuple[str, ...] = ()  # the salvage steps it took, in order; () = strictly valid


def parse_answer(text: str, schema: dict[str, Any]) -> ParsedAnswer:
    """The value in `text` that `schema` accepts; raises AnswerError (with model feedback) if none."""
    validator = jsonschema.validators.validator_for(schema)(schema)
    if not text or not text.strip():
        raise AnswerError(
            "Your answer was empty. " + _instructions(schema),
        )
    steps: list[str] = []
    text = without_surrogates(text)
    if len(text) > MAX_ANSWER_CHARS:
        text = text[:MAX_ANSWER_CHARS]
        steps.append(CAPPED)
    value = _decode(text, schema, steps)
    errors = _errors(validator, value)
    if errors:
        coerced = coerce(value, schema)
        if _canonical(coerced) != _canonical(value):
            steps.append(COERCED)
            value = coerced
            errors = _errors(validator, value)
    if errors:
        raise AnswerError(_schema_feedback(errors, schema, steps), steps=tuple(steps))
    return ParsedAnswer(value, tuple(steps))


@dataclass(frozen=True)
class AnswerAttempt:
    """One call's answer as the parser saw it."""

    chars: int
    stop_reason: str
    steps: tuple[str, ...] = ()
    error: str | None = None  # the feedback it got; None when it was accepted

    def as_dict(self) -> dict[str, Any]:
        return {
            "chars": self.chars,
            "stop_reason": self.stop_reason,
            "steps": list(self.steps),
            "error": self.error,
        }


@dataclass(frozen=True)
class AnswerRecord:
    """What asking for one structured answer took, for the trace."""

    attempts: tuple[AnswerAttempt, ...]
    usage: Usage = field(default_factory=Usage)
    degraded: bool = False  # no valid answer: the caller falls back

    @property
    def salvaged(self) -> bool:
        return bool(self.attempts) and self.attempts[-1].error is None and bool(self.attempts[-1].steps)

    def as_dict(self) -> dict[str, Any]:
        return {
            "attempts": [a.as_dict() for a in self.attempts],
            "tokens_in": self.usage.tokens_in,
            "tokens_out": self.usage.tokens_out,
            "cost_usd": self.usage.cost_usd,
            "degraded": self.degraded,
            "salvaged": self.salvaged,
        }


def ask_structured(
    provider: Provider,
    messages: Sequence[Message],
    schema: dict[str, Any],
    *,
    max_tokens: int,
    retries: int = 1,
) -> tuple[Any | None, AnswerRecord]:
    """Ask once, parse, and retry up to `retries` times with the parser's feedback appended.

    Returns (value, record), or (None, record with degraded=True) when no answer was usable.
    Provider errors propagate; a bad answer never raises.
    """
    conversation = list(messages)
    attempts: list[AnswerAttempt] = []
    usage = Usage()
    for _ in range(retries + 1):
        reply = provider.complete(conversation, schema=schema, max_tokens=max_tokens)
        usage = usage + reply.usage
        try:
            parsed = parse_answer(reply.text, schema)
        except AnswerError as exc:
            feedback = exc.feedback
            if reply.truncated:
                feedback = (
                    f"Your answer was cut off by the token limit ({max_tokens} tokens): "
                    "answer more briefly.\n" + feedback
                )
            if reply.tool_calls and not reply.text.strip():
                feedback = "Do not call a tool now: answer with the JSON object.\n" + feedback
            attempts.append(AnswerAttempt(len(reply.text), reply.stop_reason, exc.steps, feedback))
            conversation += [Message("assistant", _echo(reply.text)), Message("user", feedback)]
            continue
        attempts.append(AnswerAttempt(len(reply.text), reply.stop_reason, parsed.degraded_steps))
        return parsed.value, AnswerRecord(tuple(attempts), usage)
    return None, AnswerRecord(tuple(attempts), usage, degraded=True)


def _echo(text: str) -> str:
    if len(text) <= ECHO_CHARS:
        return text
    return text[:ECHO_CHARS] + f"\n[... {len(text) - ECHO_CHARS} more characters not repeated here]"


# -- decoding ---------------------------------------------------------------------------------


def _loads(text: str) -> Any:
    """json.loads, where nesting deeper than the decoder's recursion limit is a decoding error too
    (a model's answer of 100,000 open brackets must not end the heal)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("the JSON is nested too deeply", text[:100], 0) from None


_SURROGATES = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """`text` with every lone surrogate (no valid Unicode; a JSON "\\ud800" escape or undecodable
    bytes make them) replaced by U+FFFD, so that it can be written as UTF-8 anywhere."""
    return _SURROGATES.sub("\ufffd", text)


def echo(text: str) -> str:
    """A long answer as it is kept in a conversation: its head and how much was left out."""
    return _echo(text)


def _decode(text: str, schema: dict[str, Any], steps: list[str]) -> Any:
    try:
        return _loads(text)
    except json.JSONDecodeError as exc:
        first_error = exc
    opener = "[" if _types(schema) == ["array"] else "{"
    salvage: list[tuple[str, Callable[[str], str | None]]] = [
        (EXTRACTED, lambda t: extract_json(t, opener)),
        (TRAILING_COMMAS, drop_trailing_commas),
        (CLOSED_TRUNCATION, close_truncated),
    ]
    candidate = text
    last_error = first_error
    for name, step in salvage:
        changed = step(candidate)
        if changed is None or changed == candidate:
            continue
        candidate = changed
        steps.append(name)
        try:
            return _loads(candidate)
        except json.JSONDecodeError as exc:
            last_error = exc
    capped = (
        f" Only the first {MAX_ANSWER_CHARS} characters of your answer were read; answer much shorter."
        if CAPPED in steps
        else ""
    )
    raise AnswerError(
        f"Your answer is not valid JSON ({last_error.msg} at line {last_error.lineno} column "
        f"{last_error.colno}, near {_near(last_error.doc, last_error.pos)!r}).{capped} "
        + _instructions(schema),
        steps=tuple(steps),
    )


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _near(doc: str, pos: int) -> str:
    return doc[max(0, pos - 20) : pos + 20]


_FENCE = re.compile(r"```[ \t]*(?:json5?|jsonc|JSON)?[ \t]*\r?\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_json(text: str, opener: str = "{") -> str | None:
    """The JSON part of an answer: the first ``` fence holding `opener`, then within it (or the
    whole text) the first balanced value that parses, else the longest of the balanced ones and
    an unbalanced tail (a truncated answer). None when there is no `opener`."""
    for fenced in _FENCE.finditer(text):
        if opener in fenced.group(1):
            text = fenced.group(1)
            break
    spans = _balanced_spans(text, opener)
    for start, end in spans:
        if end is not None:
            try:
                _loads(text[start:end])
                return text[start:end]
            except json.JSONDecodeError:
                continue
    pieces = [text[start:end] for start, end in spans if end is not None]
    if spans and spans[-1][1] is None:
        pieces.append(text[spans[-1][0] :].rstrip().removesuffix("```").rstrip())
    return max(pieces, key=len) if pieces else None


def _balanced_spans(text: str, opener: str) -> list[tuple[int, int | None]]:
    """Top-level (start, end) spans beginning with `opener`; end None for one never closed."""
    closer = "}" if opener == "{" else "]"
    spans: list[tuple[int, int | None]] = []
    index = text.find(opener)
    while index != -1:
        depth, in_string, escape = 0, False, False
        end = None
        for position in range(index, len(text)):
            char = text[position]
            if in_string:
                if escape:
                    escape = False
                elif char == "\\":
                    escape = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char in "{[":
                depth += 1
            elif char in "}]":
                depth -= 1
                if depth == 0:
                    end = position + 1
                    break
        if end is None or text[end - 1] != closer:
            spans.append((index, None))
            break
        spans.append((index, end))
        index = text.find(opener, end)
    return spans


def drop_trailing_commas(text: str) -> str:
    """Commas right before a `}` or `]` (whitespace between allowed) removed, outside strings."""
    out: list[str] = []
    in_string = escape = False
    for index, char in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif char == "\\":
                escape = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            rest = text[index + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(char)
    return "".join(out)


def close_truncated(text: str) -> str | None:
    """A cut-off JSON value completed: an open string closed, an incomplete last item or key
    dropped, open brackets closed. None when the text is not cut off or cannot be completed."""
    attempt = text.rstrip()
    for _ in range(200):
        stack, in_string, escape, cuts = _scan(attempt)
        if not stack:
            return None
        closed = attempt
        if in_string:
            closed = (closed[:-1] if escape else closed) + '"'
        closed = closed.rstrip().removesuffix(",").rstrip()
        closed += "".join("}" if opener == "{" else "]" for opener in reversed(stack))
        try:
            _loads(closed)
            return closed
        except json.JSONDecodeError:
            earlier = [cut for cut in cuts if cut < len(attempt)]
            if not earlier:
                return None
            attempt = attempt[: earlier[-1]].rstrip()
    return None


def _scan(text: str) -> tuple[list[str], bool, bool, list[int]]:
    """Open brackets, whether the text ends inside a string (and right after a backslash), and
    the places an incomplete tail may be cut: before each comma and after each opener."""
    stack: list[str] = []
    cuts: list[int] = []
    in_string = escape = False
    for index, char in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif char == "\\":
                escape = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
            cuts.append(index + 1)
        elif char in "}]":
            if stack:
                stack.pop()
        elif char == ",":
            cuts.append(index)
    return stack, in_string, escape, cuts


# -- coercion ---------------------------------------------------------------------------------

_INTEGER = re.compile(r"[+-]?\d+\Z")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")
_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def coerce(value: Any, schema: Any) -> Any:
    """`value` with the simple type mismatches `schema` asks about fixed (see the module doc)."""
    if not isinstance(schema, dict):
        return value
    types = _types(schema)
    if types and not any(_JSON_TYPES.get(t, lambda v: True)(value) for t in types):
        value = _coerce_scalar(value, types)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        coerced = {}
        for key, item in value.items():
            if key in properties:
                coerced[key] = coerce(item, properties[key])
            elif extra is False:
                continue
            else:
                coerced[key] = coerce(item, extra) if isinstance(extra, dict) else item
        return coerced
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [coerce(item, schema["items"]) for item in value]
    if isinstance(value, str) and "enum" in schema and value not in schema["enum"]:
        wanted = _enum_key(value)
        for option in schema["enum"]:
            if isinstance(option, str) and _enum_key(option) == wanted:
                return option
    return value


def _coerce_scalar(value: Any, types: list[str]) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if "integer" in types and _INTEGER.match(text):
            return int(text)
        if "number" in types and _NUMBER.match(text):
            return float(text)
        if "boolean" in types and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if ("object" in types and text.startswith("{")) or ("array" in types and text.startswith("[")):
            try:
                return _loads(text)
            except json.JSONDecodeError:
                pass
    if isinstance(value, float) and "integer" in types and value.is_integer():
        return int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and "string" in types:
        return str(value)
    if "array" in types and value is not None:
        return [value]
    return value


def _enum_key(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip().lower())


def _types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return []


# -- feedback ---------------------------------------------------------------------------------


def _errors(validator: Any, value: Any) -> list[jsonschema.ValidationError]:
    return sorted(validator.iter_errors(value), key=jsonschema.exceptions.relevance, reverse=True)


def json_path(error: jsonschema.ValidationError) -> str:
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _schema_feedback(
    errors: list[jsonschema.ValidationError], schema: dict[str, Any], steps: list[str]
) -> str:
    shown = errors[:3]
    lines = ["Your answer is JSON but does not match the required shape:"]
    lines += [f"- at {json_path(e)}: {_short(e.message)}" for e in shown]
    if len(errors) > len(shown):
        lines.append(f"- and {len(errors) - len(shown)} more problem(s)")
    if CAPPED in steps:
        lines.append(f"Only the first {MAX_ANSWER_CHARS} characters of your answer were read.")
    lines.append(_instructions(schema))
    return "\n".join(lines)


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[:limit] + "..."


def _instructions(schema: dict[str, Any]) -> str:
    return f"Reply with only a JSON value of this shape, no prose and no code fences:\n{describe(schema)}"


def describe(schema: Any, depth: int = 0) -> str:
    """A compact, human-readable shape of a JSON Schema ("?" marks optional keys)."""
    if not isinstance(schema, dict) or depth > 6:
        return "any"
    if "enum" in schema:
        return " | ".join(json.dumps(option) for option in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " | ".join(describe(option, depth + 1) for option in schema[key])
    types = _types(schema)
    if "object" in types or "properties" in schema:
        required = set(schema.get("required", ()))
        parts = [
            f'"{name}"{"" if name in required else "?"}: {describe(sub, depth + 1)}'
            for name, sub in schema.get("properties", {}).items()
        ]
        return "{" + ", ".join(parts) + "}"
    if "array" in types:
        limit = f" (at most {schema['maxItems']})" if "maxItems" in schema else ""
        return f"[{describe(schema.get('items'), depth + 1)}, ...]{limit}"
    if not types:
        return "any"
    shown = " | ".join(types)
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        shown += f" {low}..{high}"
    elif low is not None:
        shown += f" >= {low}"
    elif high is not None:
        shown += f" <= {high}"
    return shown
