"""Replays of prepared answers, recording what was asked: `ScriptedModel` is a whole provider;
`ScriptedLlama` stands in for llama-cpp-python's `Llama` under the real `LlamaCppProvider`."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from selfheal.agent.exceptions import SelfhealError
from selfheal.agent.model.llm.base import Message, Reply, ToolSpec


class ScriptExhausted(SelfhealError):
    """The script has no reply left for another call."""


@dataclass
class ScriptedModel:
    outputs: list[Reply | str]
    name: str = "scripted"
    calls: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int,
    ) -> Reply:
        with self._lock:  # the generator may ask several answers at once
            self.calls.append(
                {"messages": list(messages), "tools": tools, "schema": schema, "max_tokens": max_tokens}
            )
            number = len(self.calls)
        if number > len(self.outputs):
            raise ScriptExhausted(f"call {number} but only {len(self.outputs)} replies scripted")
        reply = self.outputs[number - 1]
        return Reply(text=reply, model=self.name) if isinstance(reply, str) else reply


# The keyword parameters of llama_cpp.Llama.create_chat_completion (llama-cpp-python 0.3.36), so
# the fake refuses what the real method would refuse; a test compares them when the library is there.
CHAT_COMPLETION_PARAMETERS = frozenset({
    "messages", "functions", "function_call", "tools", "tool_choice", "temperature", "top_p", "top_k",
    "min_p", "typical_p", "stream", "stop", "seed", "response_format", "max_tokens", "presence_penalty",
    "frequency_penalty", "repeat_penalty", "tfs_z", "mirostat_mode", "mirostat_tau", "mirostat_eta",
    "model", "logits_processor", "grammar", "logit_bias", "logprobs", "top_logprobs",
})  # fmt: skip
CHARS_PER_TOKEN = 4  # estimate for unscripted token counts; real tokenizers are near it for English


@dataclass(frozen=True)
class LlamaOutput:
    """One scripted completion: what the model says and what llama.cpp would count."""

    content: str
    prompt_tokens: int | None = None  # None: estimated from the rendered messages
    completion_tokens: int | None = None  # None: estimated from `content`
    finish_reason: str = "stop"


@dataclass
class ScriptedLlama:
    """Stands in for `llama_cpp.Llama` in-process, the way the fake servers stand in for the HTTP
    APIs: `create_chat_completion` answers the next scripted output in exactly the dict shape
    llama-cpp-python returns (`chat.completion`, `choices[0].message` with role and content,
    `finish_reason`, `usage` with prompt/completion/total tokens) and records every request.

    Like the real method it refuses unknown keyword arguments (TypeError), a prompt that fills the
    context window (ValueError "Requested tokens (N) exceed context window of M"), and cuts an
    answer longer than `max_tokens` (finish_reason "length"). No tool calls come back natively:
    without a function-calling chat handler the real one answers in `content` too."""

    outputs: list[LlamaOutput | str]
    model_path: str = "scripted.gguf"
    context: int = 4096
    calls: list[dict[str, Any]] = field(default_factory=list)
    closed: bool = False

    def n_ctx(self) -> int:
        return self.context

    def close(self) -> None:
        self.closed = True

    def create_chat_completion(self, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        unknown = set(kwargs) - CHAT_COMPLETION_PARAMETERS
        if unknown:
            raise TypeError(f"create_chat_completion() got an unexpected keyword argument {min(unknown)!r}")
        if kwargs.get("stream"):
            raise NotImplementedError("ScriptedLlama does not stream")
        self.calls.append({"messages": [dict(m) for m in messages], **kwargs})
        if len(self.calls) > len(self.outputs):
            raise ScriptExhausted(f"call {len(self.calls)} but only {len(self.outputs)} completions scripted")
        scripted = self.outputs[len(self.calls) - 1]
        output = LlamaOutput(scripted) if isinstance(scripted, str) else scripted
        prompt = output.prompt_tokens
        if prompt is None:
            prompt = _estimate(sum(len(str(m.get("content") or "")) + 8 for m in messages))
        if prompt >= self.context:
            raise ValueError(f"Requested tokens ({prompt}) exceed context window of {self.context}")
        # the real rules: no (or a non-positive) max_tokens means "up to the end of the context"
        limit = kwargs.get("max_tokens") or 0
        limit = min(limit, self.context - prompt) if limit > 0 else self.context - prompt
        content, finish = output.content, output.finish_reason
        produced = (
            output.completion_tokens if output.completion_tokens is not None else _estimate(len(content))
        )
        if produced > limit:
            produced, finish = limit, "length"
            content = content[: limit * CHARS_PER_TOKEN]
        return {
            "id": f"chatcmpl-scripted-{len(self.calls)}",
            "object": "chat.completion",
            "created": 1_700_000_000 + len(self.calls),  # fixed, so recorded runs compare equal
            "model": kwargs.get("model") or self.model_path,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "logprobs": None,
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": produced,
                "total_tokens": prompt + produced,
            },
        }


def _estimate(chars: int) -> int:
    return max(1, -(-chars // CHARS_PER_TOKEN))
