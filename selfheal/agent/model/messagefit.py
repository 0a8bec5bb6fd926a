"""Fitting a conversation into a model's context window: `fit_messages` -> `FittedMessages`.

    fit_messages(messages, context_tokens, reserve_for_answer)   a chat history within a context

The ReAct debugger's conversation grows with every tool result, and a small local model
(llama.cpp, 4096 tokens) refuses a request whose prompt is longer than its context. The system
prompt stays as it is and the task is never dropped; earlier tool results are shortened by their
kind (`shorten_observation`), earlier turns are left out whole behind a note naming their calls
(the model can call again for a result), the most recent turns are kept longest.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from selfheal.agent.model.llm.base import Message
from selfheal.agent.model.textfit import fit_text, fit_traceback
from selfheal.agent.model.tokencount import REQUEST_TOKENS, CountFn, estimate_tokens, message_tokens

OBSERVATION_FLOOR = 128  # an earlier tool result is not shortened below this (a stub says nothing)
TASK_FLOOR = 256  # nor the task (the first user message)
TRACEBACK_START = "Traceback (most recent call last):"


@dataclass(frozen=True)
class FittedMessages:
    """A conversation fitted to a context: what to send, and what fitting it took."""

    messages: tuple[Message, ...]
    tokens: int  # the request as counted: messages + fixed_tokens + the request's frame
    budget: int  # context_tokens - reserve_for_answer
    shortened: int = 0  # messages whose text was shortened
    dropped: int = 0  # earlier turns left out (a model turn with its tool results and notes)

    @property
    def fits(self) -> bool:
        return self.tokens <= self.budget


def fit_messages(
    messages: Sequence[Message],
    context_tokens: int,
    reserve_for_answer: int,
    *,
    count: CountFn = estimate_tokens,
    fixed_tokens: int = 0,
) -> FittedMessages:
    """`messages` fitted into `context_tokens`, leaving `reserve_for_answer` for the answer and
    `fixed_tokens` for what else the request carries (the tools' descriptions).

    The system prompt is never changed and the task (the first user message) never dropped.
    In turn, until the request fits: the largest tool results of earlier turns are shortened
    (to OBSERVATION_FLOOR at least); earlier turns are left out whole, oldest first (an assistant
    turn goes with its tool results, so every tool_use keeps its tool_result), replaced by one
    note naming the calls left out; the latest turn's tool results are shortened; the task is
    shortened. If it still does not fit, `fits` is False: the caller must not send it."""
    budget = context_tokens - reserve_for_answer
    frame = fixed_tokens + REQUEST_TOKENS
    sized = [_Sized(m, message_tokens(m, count)) for m in messages]
    head_end = _head_end(messages)
    head, turns = sized[:head_end], _turns(sized[head_end:])
    note: _Sized | None = None
    dropped: list[list[_Sized]] = []
    shortened = 0

    def request() -> list[_Sized]:
        return head + ([note] if note else []) + [m for turn in turns for m in turn]

    def over() -> int:
        return frame + sum(m.tokens for m in request()) - budget

    def shorten(which: Sequence[list[_Sized]]) -> None:
        """The largest tool results of these turns first, each only as far as the overflow needs."""
        nonlocal shortened
        done: set[int] = set()
        while over() > 0:
            candidates = [
                (item.tokens, t, i)
                for t, turn in enumerate(which)
                for i, item in enumerate(turn)
                if item.message.role == "tool" and id(item) not in done and item.tokens > OBSERVATION_FLOOR
            ]
            if not candidates:
                return
            tokens, t, i = max(candidates)
            message = which[t][i].message
            frame_of_message = tokens - count(message.content)
            target = max(OBSERVATION_FLOOR, tokens - over()) - frame_of_message
            content = shorten_observation(message.content, target, count)
            if content != message.content:
                shorter = replace(message, content=content)
                which[t][i] = _Sized(shorter, message_tokens(shorter, count))
                shortened += 1
            done.add(id(which[t][i]))

    if over() > 0:
        shorten(turns[:-1])
    while over() > 0 and len(turns) > 1:
        dropped.append(turns.pop(0))
        text = _dropped_note([item.message for turn in dropped for item in turn], len(dropped))
        note = _Sized(Message("user", text), message_tokens(Message("user", text), count))
    if over() > 0 and turns:
        shorten(turns[-1:])
    task = next((i for i, item in enumerate(head) if item.message.role == "user"), None)
    if over() > 0 and task is not None:
        message, tokens = head[task].message, head[task].tokens
        target = max(TASK_FLOOR, tokens - over()) - (tokens - count(message.content))
        content = fit_text(message.content, target, count=count)
        if content != message.content:
            shorter = replace(message, content=content)
            head[task] = _Sized(shorter, message_tokens(shorter, count))
            shortened += 1
    fitted = request()
    return FittedMessages(
        tuple(item.message for item in fitted),
        frame + sum(item.tokens for item in fitted),
        budget,
        shortened,
        len(dropped),
    )


@dataclass(frozen=True, eq=False)  # compared by identity: the same message may appear twice
class _Sized:
    message: Message
    tokens: int


def shorten_observation(text: str, max_tokens: int, count: CountFn = estimate_tokens) -> str:
    """A tool result within `max_tokens`, by its kind: a traceback keeps its frames that matter."""
    if TRACEBACK_START in text:
        return fit_traceback(text, max_tokens, count=count)
    return fit_text(text, max_tokens, count=count)


def _head_end(messages: Sequence[Message]) -> int:
    """The system messages and the first user message (the task) lead every request."""
    for index, message in enumerate(messages):
        if message.role == "user":
            return index + 1
        if message.role != "system":
            return index
    return len(messages)


def _turns(items: Sequence[_Sized]) -> list[list[_Sized]]:
    """Units that are kept or dropped whole: an assistant turn, then what answers it (tool
    results, a correction) up to the next assistant turn."""
    turns: list[list[_Sized]] = []
    for item in items:
        if item.message.role == "assistant" or not turns:
            turns.append([item])
        else:
            turns[-1].append(item)
    return turns


def _dropped_note(dropped: list[Message], steps: int, shown: int = 8) -> str:
    calls = [_call_text(c.name, c.arguments) for m in dropped for c in m.tool_calls]
    listed = ", ".join(calls[-shown:]) + (f" and {len(calls) - shown} more" if len(calls) > shown else "")
    left_out = f"{steps} earlier step{'s' if steps != 1 else ''}"
    what = f" (tool calls: {listed})" if calls else ""
    return f"[{left_out}{what} left out here to fit the model's context; call a tool again for a result]"


def _call_text(name: str, arguments: dict[str, Any]) -> str:
    shown = ", ".join(f"{key}={_short(value)}" for key, value in arguments.items())
    return f"{name}({shown})"


def _short(value: Any, limit: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
