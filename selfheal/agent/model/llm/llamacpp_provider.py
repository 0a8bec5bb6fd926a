"""An offline GGUF model in-process through llama-cpp-python (optional extra `llamacpp`).

`model` is the path of the GGUF file (default $SELFHEAL_LLAMACPP_MODEL). The library is imported
only when this provider is built, so selfheal works without it. The model file is loaded on the
first call (not when the provider is built: config validation builds providers too), once, and
calls are serialized (a llama.cpp context is not thread-safe). A `Llama` (or anything with its
`create_chat_completion`, e.g. `ScriptedLlama`) may be handed in instead: then no file is loaded.

Tools are emulated through the prompt and a JSON answer (see toolprompt.py); a `schema` (or the
tool contract) is enforced with llama.cpp's grammar via
`response_format={"type": "json_object", "schema": ...}`. Usage comes from the completion's
`usage`; cost is 0 unless `prices` names the file.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any, Protocol

from selfheal.agent.exceptions import ConfigError, ProviderBadRequest, ProviderUnavailable
from selfheal.agent.model.llm.accounting import priced_usage
from selfheal.agent.model.llm.base import Message, Reply, ToolSpec
from selfheal.agent.model.llm.settings import ProviderSettings, Resolved
from selfheal.agent.model.llm.toolprompt import answer_schema, parse_answer, render_messages

INSTALL_HINT = (
    "the llamacpp provider needs llama-cpp-python, which is not installed: "
    "pip install 'selfheal[llamacpp]' (compiles llama.cpp, several minutes; prebuilt CPU wheels: "
    "pip install llama-cpp-python --extra-index-url https://abetlen.github.io/llama-cpp-python/whl/cpu)"
)
DEFAULT_CONTEXT = 4096


def llama_cpp_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


class LlamaLike(Protocol):
    """What the provider uses of `llama_cpp.Llama`: the OpenAI-shaped chat completion."""

    def create_chat_completion(self, *args: Any, **kwargs: Any) -> Any: ...


class LlamaCppProvider:
    name = "llamacpp"

    def __init__(
        self, resolved: Resolved, settings: ProviderSettings, *, llama: LlamaLike | None = None
    ) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        # a handed-in model belongs to the caller: close() leaves it alone
        self._owned = llama is None
        self._llama: Any = llama
        if llama is not None:
            # neither the library nor the file is needed: `model` only names the model in replies
            self.model_path = Path(resolved.model)
            self.model = self.model_path.name
            return
        if not llama_cpp_available():
            raise ConfigError(INSTALL_HINT)
        path = Path(resolved.model).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"llamacpp: model file {str(path)!r} does not exist; "
                "set SELFHEAL_LLAMACPP_MODEL or the model setting to the path of a .gguf file"
            )
        self.model_path = path
        self.model = path.name

    def __repr__(self) -> str:
        return f"LlamaCppProvider(model_path={str(self.model_path)!r})"

    def close(self) -> None:
        with self._lock:
            if self._llama is not None and self._owned:
                self._llama.close()
                self._llama = None

    def _load(self) -> Any:
        if self._llama is None:
            from llama_cpp import Llama

            try:
                self._llama = Llama(
                    model_path=str(self.model_path),
                    n_ctx=self._settings.context_tokens or DEFAULT_CONTEXT,
                    verbose=False,
                )
            except (ValueError, RuntimeError, OSError) as exc:
                raise ProviderUnavailable(
                    f"llamacpp: cannot load {self.model_path}: {exc}", provider=self.name
                ) from exc
        return self._llama

    @property
    def context_tokens(self) -> int:
        """The context window the model has (n_ctx) or will be loaded with: a longer prompt is refused."""
        n_ctx = getattr(self._llama, "n_ctx", None)
        if callable(n_ctx):
            return int(n_ctx())
        return self._settings.context_tokens or DEFAULT_CONTEXT

    def count_tokens(self, text: str) -> int | None:
        """The model's own token count of `text` (loads the model, which the next call needs
        anyway); None for a handed-in model without a tokenizer."""
        with self._lock:
            tokenize = getattr(self._load(), "tokenize", None)
            if tokenize is None:
                return None
            return len(tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int,
    ) -> Reply:
        request: dict[str, Any] = {
            "messages": render_messages(messages, tools, schema),
            "max_tokens": max_tokens,
        }
        if self._settings.temperature is not None:
            request["temperature"] = self._settings.temperature
        if tools and len(tools) > 1:
            # the grammar for the union of the debugger's seven tool schemas crashed the process
            # (SIGSEGV in add_grammar, llama-cpp-python 0.3.36, SmolLM2); one tool or a plain
            # schema compiles fine. Plain JSON mode is safe; parse_answer checks the shape after.
            request["response_format"] = {"type": "json_object"}
        else:
            grammar = answer_schema(tools, schema)
            if grammar is not None:
                request["response_format"] = {"type": "json_object", "schema": grammar}
        with self._lock:
            llama = self._load()
            try:
                completion = llama.create_chat_completion(**request)
            except ValueError as exc:  # e.g. "Requested tokens (N) exceed context window of M"
                raise ProviderBadRequest(f"llamacpp: {exc}", provider=self.name) from exc
        return parse_completion(
            completion, tools=tools, schema=schema, settings=self._settings, model=self.model
        )


def parse_completion(
    completion: dict[str, Any],
    *,
    tools: list[ToolSpec] | None,
    schema: dict[str, Any] | None,
    settings: ProviderSettings,
    model: str,
) -> Reply:
    """An OpenAI-shaped chat completion (what llama-cpp-python returns) -> Reply."""
    choice = completion["choices"][0]
    raw = choice.get("message", {}).get("content") or ""
    finish = choice.get("finish_reason") or ""
    if tools:
        text, calls = parse_answer(raw, tools, schema)
    else:
        text, calls = raw, ()
    if finish == "length":
        stop_reason = "max_tokens"
    elif finish in ("stop", "tool_calls"):
        stop_reason = "tool_use" if calls else "end_turn"
    else:
        stop_reason = finish
    usage = completion.get("usage") or {}
    return Reply(
        text=text,
        tool_calls=calls,
        usage=priced_usage(
            settings.price_for(model),
            model,
            usage.get("prompt_tokens") or 0,
            usage.get("completion_tokens") or 0,
            warn_unpriced=False,
        ),
        model=model,
        stop_reason=stop_reason,
        raw_text=raw if raw != text else None,
    )
