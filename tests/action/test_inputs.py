from __future__ import annotations

import pytest

from selfheal.action.inputs import DEFAULT_MAX_USD, ActionInputs, parse_inputs
from selfheal.agent.exceptions import ConfigError


def test_defaults_with_only_a_token() -> None:
    assert parse_inputs({"INPUT_GITHUB-TOKEN": "t0k"}) == ActionInputs(github_token="t0k")


def test_runner_names_with_dashes_and_hand_written_underscores() -> None:
    inputs = parse_inputs({
        "INPUT_GITHUB-TOKEN": "t", "INPUT_TEST-COMMAND": "pytest -q", "INPUT_MAX_MINUTES": "7.5",
        "INPUT_DRY-RUN": "true", "INPUT_MODE": "Review", "INPUT_PERMISSION": "maintain",
        "INPUT_PROTECTED-PATHS": "docs/**\n migrations/*.py, setup.py", "INPUT_ANTHROPIC-API-KEY": "sk-x",
    })  # fmt: skip
    assert inputs.test_command == "pytest -q"
    assert inputs.max_minutes == 7.5
    assert (inputs.dry_run, inputs.mode, inputs.permission) == (True, "review", "maintain")
    assert inputs.protected_paths == ("docs/**", "migrations/*.py", "setup.py")
    assert inputs.secrets == ("t", "sk-x")
    assert inputs.provider == "anthropic"  # a key and no provider: Claude


def test_the_provider_follows_what_the_workflow_gave() -> None:
    token = {"INPUT_GITHUB-TOKEN": "t"}
    assert parse_inputs(token).provider == "none"
    assert parse_inputs({**token, "INPUT_OLLAMA-HOST": "http://ollama:11434"}).provider == "ollama"
    both = parse_inputs({**token, "INPUT_OLLAMA-HOST": "http://o:1", "INPUT_ANTHROPIC-API-KEY": "sk-x"})
    assert both.provider == "anthropic"
    explicit = parse_inputs({**token, "INPUT_PROVIDER": "none", "INPUT_ANTHROPIC-API-KEY": "sk-x"})
    assert explicit.provider == "none"
    assert parse_inputs(token).max_usd == DEFAULT_MAX_USD == 1.0
    assert parse_inputs({**token, "INPUT_MAX-USD": "0.25"}).max_usd == 0.25
    roles = parse_inputs({
        **token, "INPUT_ANTHROPIC-API-KEY": "sk-x", "INPUT_OLLAMA-HOST": "http://o:1",
        "INPUT_ROLES": "generator=ollama:qwen2.5-coder:7b\n\n critic=none \n",
    })  # fmt: skip
    assert roles.roles == ("generator=ollama:qwen2.5-coder:7b", "critic=none")


def test_allow_direct_requirements_is_off_unless_the_workflow_says_so() -> None:
    from selfheal.action.main import settings

    token = {"INPUT_GITHUB-TOKEN": "t"}
    assert parse_inputs(token).allow_direct_requirements is False
    assert parse_inputs({**token, "INPUT_ALLOW-DIRECT-REQUIREMENTS": ""}).allow_direct_requirements is False
    allowed = parse_inputs({**token, "INPUT_ALLOW-DIRECT-REQUIREMENTS": "true"})
    assert allowed.allow_direct_requirements is True
    assert parse_inputs({**token, "INPUT_ALLOW_DIRECT_REQUIREMENTS": "yes"}).allow_direct_requirements is True
    # the heal's flag: set when the workflow allows it, absent (the default: off) otherwise
    assert settings(allowed, {}).heal_flags["allow_direct_requirements"] is True
    assert "allow_direct_requirements" not in settings(parse_inputs(token), {}).heal_flags
    with pytest.raises(
        ConfigError, match="input allow-direct-requirements: 'sometimes' is not true or false"
    ):
        parse_inputs({**token, "INPUT_ALLOW-DIRECT-REQUIREMENTS": "sometimes"})


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"INPUT_PROVIDER": "anthropic"}, "provider anthropic needs the input anthropic-api-key, which is"),
        ({"INPUT_PROVIDER": "ollama"}, "provider ollama needs the input ollama-host, which is empty"),
        ({"INPUT_PROVIDER": "llamacpp"}, "input provider: 'llamacpp'; choose one of none, anthropic, ollama"),
        (
            {"INPUT_ANTHROPIC-API-KEY": "sk-x", "INPUT_ROLES": "critic=ollama"},
            "provider ollama needs the input ollama-host",
        ),
        ({"INPUT_ROLES": "planner=anthropic"}, "input roles: unknown role 'planner'"),
        ({"INPUT_ROLES": "generator"}, "input roles: 'generator': expected ROLE=PROVIDER"),
        ({"INPUT_MODEL": "claude-opus-5"}, "input model names a model, but provider is none"),
        ({"INPUT_MAX-USD": "0"}, "input max-usd: must be positive"),
    ],
)
def test_model_inputs_that_cannot_work_are_refused(env: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        parse_inputs({"INPUT_GITHUB-TOKEN": "t", **env})


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"INPUT_DRY-RUN": "maybe"}, "input dry-run: 'maybe' is not true or false"),
        ({"INPUT_MAX-MINUTES": "ten"}, "input max-minutes: 'ten' is not a number"),
        ({"INPUT_MAX-MINUTES": "-1"}, "input max-minutes: must be positive"),
        ({"INPUT_SANDBOX": "vm"}, "input sandbox: 'vm'; choose one of auto, docker, local"),
        ({"INPUT_PERMISSION": "owner"}, "input permission: 'owner'"),
        ({"INPUT_MODE": "yolo"}, "input mode: 'yolo'; choose one of auto, review"),
    ],
)
def test_invalid_inputs(env: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        parse_inputs(env)
