"""A provider that replays prepared replies in order, recording what it was asked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selfheal.agent.exceptions import SelfhealError
from selfheal.agent.llm.base import Message, Reply, ToolSpec


class ScriptExhausted(SelfhealError):
    """The script has no reply left for another call."""


@dataclass
class ScriptedModel:
    outputs: list[Reply | str]
    name: str = "scripted"
    calls: list[dict[str, Any]] = field(default_factory=list)

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int,
    ) -> Reply:
        self.calls.append(
            {"messages": list(messages), "tools": tools, "schema": schema, "max_tokens": max_tokens}
        )
        if len(self.calls) > len(self.outputs):
            raise ScriptExhausted(f"call {len(self.calls)} but only {len(self.outputs)} replies scripted")
        reply = self.outputs[len(self.calls) - 1]
        return Reply(text=reply, model=self.name) if isinstance(reply, str) else reply
