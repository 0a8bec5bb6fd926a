"""What each model role was told and answered, kept for the run report (`conversation.jsonl`).

    transcript = Transcript()
    MeteredProvider(provider, "debugger", ledger, transcript)   # records every call it makes
    transcript.records()                                          # one dict per call, oldest first

A multi-step role (the ReAct debugger, a generator told why its edit did not apply) sends its
whole conversation again at every call. A call is kept as what it adds to its conversation — the
messages not sent before in that conversation, then the answer — so the transcript reads as the
conversation did, not as N growing copies of it. A conversation is known by its system prompt and
first user message; the generator's parallel answers, asked from different angles, are separate
conversations.

Capped, because a report must stay small whatever the model wrote: a message keeps its first
MAX_MESSAGE_CHARS (a marker says how much was cut), a system prompt its first lines (the role's
prompt file holds the rest), and once a role's kept texts reach MAX_ROLE_CHARS its later calls keep
their tokens and cost but not their texts. Not scrubbed here: the writer of the output folder
scrubs every record (a model may repeat a secret a tool showed it).
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from selfheal.agent.model.llm.base import Message, Reply

MAX_MESSAGE_CHARS = 4_000
MAX_SYSTEM_LINES = 4
MAX_ROLE_CHARS = 60_000
MAX_CONVERSATIONS = 32  # per role, remembered to continue (the oldest are forgotten first)
# starts with an ellipsis: the scrubber also masks a secret's head that a writer cut short
CUT = "… [{n} more characters not kept]"


@dataclass(frozen=True)
class Turn:
    """One message of a conversation, as the report shows it."""

    kind: str  # system | user | assistant | tool_call | tool_result
    text: str
    tool: str = ""  # the tool's name, for a tool call or its result

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text, **({"tool": self.tool} if self.tool else {})}


@dataclass(frozen=True)
class Call:
    """One call of one role: what it added to its conversation, and what it cost."""

    role: str
    number: int  # of this role's calls, from 1
    conversation: int  # of this role's conversations, from 1
    turns: tuple[Turn, ...]
    model: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    stop_reason: str = ""
    error: str = ""  # the call failed (after the SDK's retries): no answer
    left_out: int = 0  # turns whose text was not kept: the role's cap was reached

    def as_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "role": self.role, "call": self.number, "conversation": self.conversation,
            "model": self.model, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
            "cost_usd": round(self.cost_usd, 6), "stop_reason": self.stop_reason,
            "turns": [turn.as_dict() for turn in self.turns],
        }  # fmt: skip
        if self.error:
            record["error"] = self.error
        if self.left_out:
            record["left_out"] = self.left_out
        return record


@dataclass
class _Conversation:
    number: int
    head: tuple[str, str]  # its system prompt and first user message
    sent: Counter[tuple[str, str]] = field(default_factory=Counter)  # messages already kept
    tools: dict[str, str] = field(default_factory=dict)  # tool call id -> tool name


@dataclass
class _Role:
    calls: int = 0
    chars: int = 0
    conversations: list[_Conversation] = field(default_factory=list)
    opened: int = 0


class Transcript:
    """Every call of every role of one heal. Safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roles: dict[str, _Role] = {}
        self._calls: list[Call] = []

    def record(self, role: str, messages: list[Message], reply: Reply | None, error: str = "") -> Call:
        with self._lock:
            state = self._roles.setdefault(role, _Role())
            state.calls += 1
            talk = self._conversation(state, messages)
            fresh = _unsent(messages, talk)
            turns = [_turn(message, talk) for message in fresh]
            if reply is not None:
                turns.extend(_answer(reply, talk))
                talk.sent[_key(reply.as_message())] += 1
            kept, left_out = _within_cap(turns, state)
            usage = reply.usage if reply is not None else None
            call = Call(
                role, state.calls, talk.number, tuple(kept),
                model=reply.model if reply is not None else "",
                tokens_in=usage.tokens_in if usage else 0, tokens_out=usage.tokens_out if usage else 0,
                cost_usd=usage.cost_usd if usage else 0.0,
                stop_reason=reply.stop_reason if reply is not None else "", error=error, left_out=left_out,
            )  # fmt: skip
            self._calls.append(call)
            return call

    @property
    def calls(self) -> tuple[Call, ...]:
        with self._lock:
            return tuple(self._calls)

    def records(self) -> list[dict[str, Any]]:
        return [call.as_dict() for call in self.calls]

    @staticmethod
    def _conversation(state: _Role, messages: list[Message]) -> _Conversation:
        head = _head(messages)
        for talk in state.conversations:
            if talk.head == head:
                return talk
        state.opened += 1
        talk = _Conversation(state.opened, head)
        state.conversations.append(talk)
        del state.conversations[:-MAX_CONVERSATIONS]
        return talk


def _head(messages: list[Message]) -> tuple[str, str]:
    system = next((m.content for m in messages if m.role == "system"), "")
    user = next((m.content for m in messages if m.role == "user"), "")
    return system, user


def _key(message: Message) -> tuple[str, str]:
    calls = json.dumps([[c.name, c.arguments] for c in message.tool_calls], default=str, sort_keys=True)
    return message.role, message.content + (calls if message.tool_calls else "")


def _unsent(messages: list[Message], talk: _Conversation) -> list[Message]:
    """The messages this conversation has not kept yet (each kept one counted off once)."""
    seen = Counter(talk.sent)
    fresh = []
    for message in messages:
        key = _key(message)
        if seen[key] > 0:
            seen[key] -= 1
            continue
        fresh.append(message)
        talk.sent[key] += 1
    return fresh


def _turn(message: Message, talk: _Conversation) -> Turn:
    if message.role == "system":
        lines = message.content.splitlines()
        shown = "\n".join(lines[:MAX_SYSTEM_LINES])
        more = len(lines) - MAX_SYSTEM_LINES
        return Turn(
            "system", _cut(shown) + (f"\n… ({more} more lines of the role's prompt)" if more > 0 else "")
        )
    if message.role == "tool":
        return Turn("tool_result", _cut(message.content), talk.tools.get(message.tool_call_id or "", ""))
    if message.role == "assistant" and message.tool_calls:
        # an answer sent back that was not kept as this conversation's answer (shortened, echoed)
        return Turn("assistant", _cut(message.content + "".join(f"\n→ {c.name}" for c in message.tool_calls)))
    return Turn(message.role, _cut(message.content))


def _answer(reply: Reply, talk: _Conversation) -> list[Turn]:
    turns = [Turn("assistant", _cut(reply.text))] if reply.text.strip() else []
    for call in reply.tool_calls:
        talk.tools[call.id] = call.name
        arguments = json.dumps(call.arguments, indent=1, ensure_ascii=False, default=str)
        turns.append(Turn("tool_call", _cut(arguments), call.name))
    return turns


def _cut(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    # a model may answer lone surrogates: kept as "?", so every writer can encode the text
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[:limit] + CUT.format(n=len(text) - limit)


def _within_cap(turns: list[Turn], state: _Role) -> tuple[list[Turn], int]:
    """The turns whose text still fits the role's cap, and how many did not."""
    kept = []
    for turn in turns:
        if state.chars + len(turn.text) > MAX_ROLE_CHARS:
            state.chars = MAX_ROLE_CHARS  # once full, nothing later squeezes in out of order
            continue
        state.chars += len(turn.text)
        kept.append(turn)
    return kept, len(turns) - len(kept)
