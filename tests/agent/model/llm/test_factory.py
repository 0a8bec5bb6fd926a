"""Building providers: by name, per role (shared where roles agree), metered into a ledger."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from selfheal.agent.config import build_config
from selfheal.agent.exceptions import ConfigError
from selfheal.agent.model.llm import (
    Message,
    MeteredProvider,
    ProviderSettings,
    RoleOverride,
    Usage,
    UsageLedger,
    make_provider,
    providers_for_roles,
)
from selfheal.agent.model.llm.anthropic_provider import AnthropicProvider
from selfheal.agent.model.llm.ollama_provider import OllamaProvider
from tests.fakes.anthropic_server import message, ok
from tests.fakes.ollama_server import chat


def test_none_and_unknown_names():
    assert make_provider("none") is None
    assert make_provider("none", ProviderSettings(provider="anthropic")) is None
    with pytest.raises(ConfigError, match="unknown provider 'gpt-9'; this build knows: anthropic, llamacpp"):
        make_provider("gpt-9")


def test_building_is_cheap_and_checks_the_key_variable():
    provider = make_provider("anthropic", env={"ANTHROPIC_API_KEY": "sk-ant-x"})
    assert isinstance(provider, AnthropicProvider)
    assert (
        repr(provider) == "AnthropicProvider(model='claude-sonnet-5-5', base_url='https://api.anthropic.com')"
    )
    with pytest.raises(ConfigError, match="set the environment variable ANTHROPIC_API_KEY"):
        make_provider("anthropic", env={"ANTHROPIC_API_KEY": "  "})
    assert isinstance(make_provider("ollama", env={}), OllamaProvider)  # no key needed


def test_config_validation_still_rejects_unknown_providers(tmp_path):
    with pytest.raises(ConfigError, match="unknown provider 'gpt-9'"):
        build_config(tmp_path, {"provider": "gpt-9"})


def test_roles_get_their_providers_shared_where_they_agree(start_anthropic, start_ollama):
    claude = start_anthropic([ok(message("generated", input_tokens=100, output_tokens=50))])
    local = start_ollama([ok(chat("diagnosed", prompt_eval_count=300, eval_count=30))])
    settings = ProviderSettings(
        provider="anthropic",
        base_url=claude.url,
        max_retries=0,
        roles={
            "debugger": RoleOverride(provider="ollama", model="qwen3-coder:30b", base_url=local.url),
            "critic": RoleOverride(model="claude-haiku-4-5"),
            "memory": RoleOverride(provider="none"),
        },
    )
    env = {"ANTHROPIC_API_KEY": claude.api_key or ""}

    providers = providers_for_roles(settings, env=env)

    assert set(providers) == {"spec_tests", "qa_adversarial", "debugger", "generator", "critic", "judge"}
    assert (
        isinstance(providers["debugger"], OllamaProvider) and providers["debugger"].model == "qwen3-coder:30b"
    )
    assert (
        isinstance(providers["critic"], AnthropicProvider) and providers["critic"].model == "claude-haiku-4-5"
    )
    assert providers["generator"].model == "claude-sonnet-5-5"
    # one client for the roles that agree on provider, model and endpoint
    assert (
        providers["generator"] is providers["spec_tests"] is providers["qa_adversarial"] is providers["judge"]
    )
    assert providers["critic"] is not providers["generator"]

    ledger = UsageLedger()
    metered = providers_for_roles(settings, env=env, ledger=ledger)
    assert all(isinstance(p, MeteredProvider) for p in metered.values())
    metered["generator"].complete([Message("user", "patch it")], max_tokens=100)
    metered["debugger"].complete([Message("user", "why?")], max_tokens=100)

    assert ledger.calls() == 2
    assert ledger.by_role() == {
        "generator": Usage(100, 50, pytest.approx((100 * 2 + 50 * 10) / 1e6)),
        "debugger": Usage(300, 30, 0.0),
    }
    assert local.requests()[0]["body"]["model"] == "qwen3-coder:30b"
    assert claude.requests()[0]["body"]["model"] == "claude-sonnet-5-5"


def test_llamacpp_without_the_library_says_how_to_install_it(tmp_path):
    """Runs in a child interpreter where `llama_cpp` cannot be imported (whatever this venv has)."""
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    code = textwrap.dedent(
        f"""
        import sys
        sys.modules["llama_cpp"] = None  # makes the module unimportable
        from selfheal.agent.exceptions import ConfigError
        from selfheal.agent.model.llm import make_provider
        try:
            make_provider("llamacpp", env={{"SELFHEAL_LLAMACPP_MODEL": {str(gguf)!r}}})
        except ConfigError as exc:
            print(exc)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert "needs llama-cpp-python, which is not installed: pip install 'selfheal[llamacpp]'" in done.stdout
