from __future__ import annotations

from pathlib import Path

import pytest

from selfheal.agent.config import DEFAULT_TEST_COMMAND, build_config, read_repo_settings
from selfheal.agent.exceptions import ConfigError


def write_pyproject(root: Path, body: str) -> None:
    (root / "pyproject.toml").write_text(body, encoding="utf-8")


def test_defaults_without_pyproject(tmp_path):
    config = build_config(tmp_path, {})
    assert config.test_command == DEFAULT_TEST_COMMAND
    assert config.max_candidates == 1500
    assert "**/tests/**" in config.protected


def test_tool_selfheal_table_is_read_and_flags_win(tmp_path):
    write_pyproject(
        tmp_path,
        """
[tool.selfheal]
test-command = "python -m pytest -q tests/unit"
source = ["src/**/*.py"]
max_candidates = 40
timeout = 90
""",
    )
    config = build_config(tmp_path, {"max_candidates": 7, "timeout": None})
    assert config.test_command == "python -m pytest -q tests/unit"
    assert config.source == ("src/**/*.py",)
    assert config.max_candidates == 7  # flag
    assert config.timeout == 90.0  # file (the flag was not given)


def test_unknown_key_is_a_config_error_naming_the_key(tmp_path):
    write_pyproject(tmp_path, "[tool.selfheal]\ntest-comand = 'pytest'\n")
    with pytest.raises(ConfigError, match="unknown key 'test-comand'"):
        read_repo_settings(tmp_path)


def test_wrong_types_and_bad_toml_are_config_errors(tmp_path):
    write_pyproject(tmp_path, "[tool.selfheal]\nmax-candidates = 'many'\n")
    with pytest.raises(ConfigError, match="max-candidates has an invalid value 'many'"):
        read_repo_settings(tmp_path)
    write_pyproject(tmp_path, "[tool.selfheal\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        read_repo_settings(tmp_path)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"max_candidates": 0}, "--max-candidates must be at least 1"),
        ({"timeout": -1.0}, "--timeout must be positive"),
        ({"test_command": "  "}, "the test command is empty"),
        ({"provider": "gpt"}, "unknown provider 'gpt'"),
    ],
)
def test_invalid_values_are_rejected(tmp_path, flags, message):
    with pytest.raises(ConfigError, match=message):
        build_config(tmp_path, flags)


def test_a_buildable_provider_is_accepted(tmp_path, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    assert build_config(tmp_path, {"provider": "ollama"}).provider == "ollama"
