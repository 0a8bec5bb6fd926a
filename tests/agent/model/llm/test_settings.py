from __future__ import annotations

import dataclasses

import pytest

from selfheal.agent.exceptions import ConfigError
from selfheal.agent.model.llm import DEFAULT_PRICES, ROLES, Price, ProviderSettings, RoleOverride
from selfheal.agent.model.llm.settings import parse_role_spec


def test_defaults_are_the_real_services():
    settings = ProviderSettings()

    anthropic = settings.resolve("anthropic", env={})
    ollama = settings.resolve("ollama", env={})

    assert (anthropic.base_url, anthropic.api_key_env, anthropic.model) == (
        "https://api.anthropic.com",
        "ANTHROPIC_API_KEY",
        "claude-sonnet-5-5",
    )
    assert (ollama.base_url, ollama.api_key_env, ollama.model) == (
        "http://127.0.0.1:11434",
        "OLLAMA_API_KEY",
        "qwen2.5-coder:7b",
    )
    assert settings.provider == "none" and settings.timeout > 0 and settings.max_retries == 2
    assert settings.prices is not None and settings.price_for("claude-sonnet-5-5") == Price(2.0, 10.0)


def test_fields_win_over_the_environment_which_wins_over_defaults():
    env = {
        "OLLAMA_HOST": "http://gpu-box:11434",
        "SELFHEAL_OLLAMA_MODEL": "qwen3-coder:30b",
        "ANTHROPIC_BASE_URL": "https://proxy.example/anthropic",
        "SELFHEAL_LLAMACPP_MODEL": "/models/x.gguf",
    }

    assert ProviderSettings().resolve("ollama", env).base_url == "http://gpu-box:11434"
    assert ProviderSettings().resolve("ollama", env).model == "qwen3-coder:30b"
    assert ProviderSettings().resolve("anthropic", env).base_url == "https://proxy.example/anthropic"
    assert ProviderSettings().resolve("llamacpp", env).model == "/models/x.gguf"
    overridden = ProviderSettings(base_url="http://other:1", model="m", api_key_env="MY_KEY")
    assert overridden.resolve("ollama", env).base_url == "http://other:1"
    assert overridden.resolve("ollama", env).model == "m"
    assert overridden.resolve("anthropic", env).api_key_env == "MY_KEY"


def test_llamacpp_needs_a_model_path():
    with pytest.raises(ConfigError, match="llamacpp: no model configured; set SELFHEAL_LLAMACPP_MODEL"):
        ProviderSettings().resolve("llamacpp", env={})


def test_roles_override_provider_and_model():
    settings = ProviderSettings(
        provider="anthropic",
        model="claude-opus-5-5",
        base_url="https://proxy.example",
        api_key_env="WORK_KEY",
        roles={
            "debugger": RoleOverride(provider="ollama", model="qwen3-coder:30b"),
            "critic": RoleOverride(model="claude-haiku-4-5"),
            "memory": RoleOverride(provider="none"),
        },
    )

    debugger = settings.for_role("debugger")
    critic = settings.for_role("critic")

    # another provider: its own defaults, not the main provider's endpoint or key variable
    assert (debugger.provider, debugger.model, debugger.base_url, debugger.api_key_env) == (
        "ollama",
        "qwen3-coder:30b",
        None,
        None,
    )
    assert (critic.provider, critic.model, critic.base_url, critic.api_key_env) == (
        "anthropic",
        "claude-haiku-4-5",
        "https://proxy.example",
        "WORK_KEY",
    )
    assert settings.for_role("memory").provider == "none"
    assert settings.for_role("generator") == settings
    with pytest.raises(ConfigError, match="unknown role 'planner'"):
        settings.for_role("planner")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"provider": "openai"}, "unknown provider 'openai'"),
        ({"roles": {"planner": RoleOverride()}}, "unknown role 'planner'"),
        ({"roles": {"critic": RoleOverride(provider="gpt")}}, "unknown provider 'gpt'"),
        ({"timeout": 0}, "timeout must be positive"),
        ({"max_retries": -1}, "max-retries must be 0 or more"),
        ({"schema_via": "grammar"}, "schema-via must be one of: output_format, forced_tool"),
    ],
)
def test_invalid_settings_are_config_errors(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        ProviderSettings(**kwargs)


def test_settings_are_frozen_all_the_way_down():
    settings = ProviderSettings(roles={"critic": RoleOverride(model="m")})

    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.model = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        settings.roles["debugger"] = RoleOverride()  # type: ignore[index]
    with pytest.raises(TypeError):
        settings.prices["m"] = Price(1, 1)  # type: ignore[index]


def test_from_mapping_reads_a_toml_like_table():
    settings = ProviderSettings.from_mapping(
        {
            "provider": "anthropic",
            "model": "claude-opus-5-5",
            "max-retries": 5,
            "timeout": 30,
            "schema-via": "forced_tool",
            "prices": {"my-model": {"input": 1, "output": 2, "cache-read": 0.1}, "other": [3, 4]},
            "roles": {"debugger": {"provider": "ollama", "model": "qwen3-coder:30b"}},
        }
    )

    assert settings.max_retries == 5 and settings.timeout == 30 and settings.schema_via == "forced_tool"
    assert settings.price_for("my-model") == Price(1.0, 2.0, None, 0.1)
    assert settings.price_for("other") == Price(3.0, 4.0)
    assert settings.price_for("claude-opus-5-5") == DEFAULT_PRICES["claude-opus-5-5"]  # defaults kept
    assert settings.roles["debugger"] == RoleOverride("ollama", "qwen3-coder:30b")
    with pytest.raises(ConfigError, match="unknown provider setting 'api_key'"):
        ProviderSettings.from_mapping({"api_key": "sk-..."})
    with pytest.raises(ConfigError, match="max-retries must be an integer"):
        ProviderSettings.from_mapping({"max-retries": "3"})
    with pytest.raises(ConfigError, match="invalid provider settings"):
        ProviderSettings.from_mapping({"prices": {"m": {"input": 1}}})
    with pytest.raises(ConfigError, match="role 'critic': unknown keys"):
        ProviderSettings.from_mapping({"roles": {"critic": {"modle": "x"}}})


def test_prices_match_dated_model_names_and_nothing_else():
    settings = ProviderSettings()

    assert settings.price_for("claude-haiku-4-5-20251001") == settings.price_for("claude-haiku-4-5")
    assert settings.price_for("claude-sonnet-5-5@20260901") == settings.price_for("claude-sonnet-5-5")
    assert settings.price_for("claude-sonnet-5-5-preview") is None
    assert settings.price_for("llama3.2") is None
    assert Price(2.0, 10.0).cost(1_000_000, 1_000_000, cache_write=1_000_000, cache_read=1_000_000) == (
        pytest.approx(2.0 + 10.0 + 2.5 + 0.2)
    )


def test_every_role_is_known():
    assert ROLES == ("spec_tests", "qa_adversarial", "debugger", "generator", "critic", "judge", "memory")


@pytest.mark.parametrize(
    ("spec", "role", "override"),
    [
        ("generator=ollama:qwen2.5-coder:7b", "generator", RoleOverride("ollama", "qwen2.5-coder:7b")),
        ("debugger=anthropic", "debugger", RoleOverride("anthropic")),
        (
            "qa-adversarial=anthropic:claude-haiku-4-5",
            "qa_adversarial",
            RoleOverride("anthropic", "claude-haiku-4-5"),
        ),
        ("memory=llamacpp:C:/models/x.gguf", "memory", RoleOverride("llamacpp", "C:/models/x.gguf")),
        ("critic=none", "critic", RoleOverride("none")),
    ],
)
def test_role_specs_split_at_the_first_equals_then_the_first_colon(spec, role, override):
    assert parse_role_spec(spec) == (role, override)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("generator", r"'generator': expected ROLE=PROVIDER\[:MODEL\]"),
        ("generator=", r"'': expected PROVIDER\[:MODEL\]"),
        ("generator=ollama:", "'ollama:': nothing after ':'"),
        ("planner=ollama", "unknown role 'planner'"),
        ("generator=qwen2.5-coder:7b", "unknown provider 'qwen2.5-coder'"),
    ],
)
def test_bad_role_specs_say_what_was_expected(spec, message):
    with pytest.raises(ConfigError, match=message):
        parse_role_spec(spec)
