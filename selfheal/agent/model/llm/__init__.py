"""The seam for language models (DESIGN.md, "LLM providers").

Every provider answers `complete(messages, *, tools=None, schema=None, max_tokens)` with a
`Reply(text, tool_calls, usage, model, stop_reason)`. Providers: `anthropic` (Messages API, native
tools), `ollama` (chat API, native tools, `format` schemas), `llamacpp` (a GGUF file in-process,
tools emulated in the prompt), and `none`: no model, the embedded search engine repairs alone.
`ProviderSettings` configures them (defaults are the real services), `make_provider` and
`providers_for_roles` build them, `UsageLedger` sums tokens and dollars per role.
`ScriptedModel` replays fixed replies; it drives tests of the model-driven loop against real
sandboxes, the way a `MockTransport` drives an HTTP client. `ScriptedLlama` does the same one level
down, in place of llama-cpp-python's `Llama` under the real `LlamaCppProvider`. SDKs are imported only when a
provider that needs one is built.

Part of the model stage: may import `agent.exceptions` and its own modules only.
"""

from selfheal.agent.model.llm.accounting import LedgerEntry, MeteredProvider, UsageLedger
from selfheal.agent.model.llm.base import (
    Message,
    Provider,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
)
from selfheal.agent.model.llm.factory import make_provider, providers_for_roles
from selfheal.agent.model.llm.scripted import LlamaOutput, ScriptedLlama, ScriptedModel, ScriptExhausted
from selfheal.agent.model.llm.settings import (
    DEFAULT_PRICES,
    PROVIDERS,
    ROLES,
    Price,
    ProviderSettings,
    RoleOverride,
)

__all__ = [
    "DEFAULT_PRICES",
    "PROVIDERS",
    "ROLES",
    "LedgerEntry",
    "LlamaOutput",
    "Message",
    "MeteredProvider",
    "Price",
    "Provider",
    "ProviderSettings",
    "Reply",
    "RoleOverride",
    "ScriptExhausted",
    "ScriptedLlama",
    "ScriptedModel",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "UsageLedger",
    "make_provider",
    "providers_for_roles",
]
