"""Values and the protocol every model provider implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # for role "tool": which call this answers
    # An assistant turn exactly as its provider returned it (Anthropic content blocks, with signed
    # thinking blocks). When present, the provider that made it sends these back verbatim: a
    # thinking model refuses tool results whose assistant turn lost its thinking blocks.
    native: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call, described by a JSON Schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.tokens_in + other.tokens_in,
            self.tokens_out + other.tokens_out,
            self.cost_usd + other.cost_usd,
        )


# Why a model stopped, in Anthropic's vocabulary whatever the provider: "end_turn", "tool_use",
# "max_tokens", "stop_sequence", "refusal", ... ("" when the provider did not say).
TRUNCATED = frozenset({"max_tokens", "model_context_window_exceeded"})


@dataclass(frozen=True)
class Reply:
    """One answer. With a `schema`, `text` is the JSON answer; `raw_text` is what the model wrote
    before a provider extracted text or tool calls from it (llama.cpp tool emulation), if different."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    stop_reason: str = ""
    raw_text: str | None = None
    native: tuple[dict[str, Any], ...] = ()  # the provider's own content blocks (see Message.native)

    @property
    def truncated(self) -> bool:
        """The answer was cut off by the token limit: it may be incomplete JSON or code."""
        return self.stop_reason in TRUNCATED

    def as_message(self) -> Message:
        """This reply as the assistant turn to append to the conversation before tool results."""
        return Message("assistant", self.text, self.tool_calls, native=self.native)


class Provider(Protocol):
    name: str

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int,
    ) -> Reply: ...


# Optional on a provider, never required (model/tokencount.py reads them with getattr/isinstance):
#   context_tokens: int | None   the context window a request must fit in, when known
#   count_tokens(text)           the model's own token count (below)


@runtime_checkable
class TokenCounting(Protocol):
    """A provider that can count tokens as its model does; None when it cannot right now."""

    def count_tokens(self, text: str) -> int | None: ...
