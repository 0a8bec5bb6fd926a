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

The salvage steps 2-4 are `answerjson`'s, the coercion `answercoerce`'s, and the shape the
feedback describes `answershape`'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from selfheal.agent.exceptions import AnswerError
from selfheal.agent.model.answercoerce import coerce
from selfheal.agent.model.answerjson import close_truncated, drop_trailing_commas, extract_json, loads
from selfheal.agent.model.answershape import instructions, json_path, schema_types
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

if TYPE_CHECKING:  # imported where used: a heal without a model checks no answer or tool call
    import jsonschema


@dataclass(frozen=True)
class ParsedAnswer:
    value: Any
    degraded_steps: tuple[str, ...] = ()  # the salvage steps it took, in order; () = strictly valid


def parse_answer(text: str, schema: dict[str, Any]) -> ParsedAnswer:
    """The value in `text` that `schema` accepts; raises AnswerError (with model feedback) if none."""
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    if not text or not text.strip():
        raise AnswerError(
            "Your answer was empty. " + instructions(schema),
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


_SURROGATES = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """`text` with every lone surrogate (no valid Unicode; a JSON "\\ud800" escape or undecodable
    bytes make them) replaced by U+FFFD, so that it can be written as UTF-8 anywhere."""
    return _SURROGATES.sub("\ufffd", text)


def echo(text: str) -> str:
    """A long answer as it is kept in a conversation: its head and how much was left out."""
    return _echo(text)


# -- decoding ---------------------------------------------------------------------------------


def _decode(text: str, schema: dict[str, Any], steps: list[str]) -> Any:
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        first_error = exc
    opener = "[" if schema_types(schema) == ["array"] else "{"
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
            return loads(candidate)
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
        + instructions(schema),
        steps=tuple(steps),
    )


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _near(doc: str, pos: int) -> str:
    return doc[max(0, pos - 20) : pos + 20]


# -- feedback ---------------------------------------------------------------------------------


def _errors(validator: Any, value: Any) -> list[jsonschema.ValidationError]:
    import jsonschema

    return sorted(validator.iter_errors(value), key=jsonschema.exceptions.relevance, reverse=True)


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
    lines.append(instructions(schema))
    return "\n".join(lines)


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[:limit] + "..."
