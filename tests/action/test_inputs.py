from __future__ import annotations

import pytest

from selfheal.action.inputs import ActionInputs, parse_inputs
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
