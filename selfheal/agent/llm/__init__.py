"""The seam for language models (DESIGN.md, "LLM providers").

Every provider answers `complete(messages, *, tools=None, schema=None, max_tokens)` with a
`Reply(text, tool_calls, usage)`. `none` means no model: the embedded search engine does the
repair alone. `ScriptedModel` replays fixed replies; it drives tests of the model-driven loop
against real sandboxes, the way a `MockTransport` drives an HTTP client.
"""

from selfheal.agent.llm.base import (
    Message,
    Provider,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
    make_provider,
)
from selfheal.agent.llm.scripted import ScriptedModel, ScriptExhausted

__all__ = [
    "Message",
    "Provider",
    "Reply",
    "ScriptExhausted",
    "ScriptedModel",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "make_provider",
]
