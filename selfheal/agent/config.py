"""One typed object for a heal's inputs, parsed once from flags and the repo's pyproject.

Precedence: command-line flags, then `[tool.selfheal]` in the target repo's `pyproject.toml`,
then defaults. Keys may be spelled with dashes or underscores.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from selfheal.agent.exceptions import ConfigError
from selfheal.agent.llm import make_provider
from selfheal.sandbox import Limits, Sandbox
from selfheal.sandbox.select import choose_sandbox

DEFAULT_TEST_COMMAND = "python -m pytest"

# Paths a repair may never touch (verdict rule 3): tests, test configuration and CI.
# A pattern without "/" names a file at any depth; "**/" spans any number of folders.
DEFAULT_PROTECTED = (
    "**/tests/**",
    "**/test/**",
    "test_*.py",
    "*_test.py",
    "conftest.py",
    "pytest.ini",
    "tox.ini",
    "noxfile.py",
    ".coveragerc",
    ".github/**",
    ".gitlab-ci.yml",
    ".circleci/**",
    ".ci/**",
)


# Test configuration that may sit inside an otherwise editable file.
PROTECTED_TABLES = {
    "pyproject.toml": ("tool.pytest", "tool.coverage", "tool.selfheal", "tool.tox"),
    "setup.cfg": ("tool:pytest", "coverage:run", "coverage:report"),
}


@dataclass(frozen=True)
class HealConfig:
    repo: Path
    test_command: str = DEFAULT_TEST_COMMAND
    python: str | None = None
    out_dir: Path | None = None
    apply: bool = False
    max_candidates: int = 1500
    timeout: float = 600.0
    test_timeout: float = 60.0
    max_minutes: float = 10.0
    seed: int = 0
    source: tuple[str, ...] = ()
    protected: tuple[str, ...] = DEFAULT_PROTECTED
    flake_reruns: int = 1
    memory_mb: int = 2048
    max_processes: int = 256
    namespaces: bool = True
    provider: str = "none"
    sandbox: str = "auto"  # auto | docker | local
    sandbox_image: str | None = None
    setup_command: str | None = None
    sandbox_ca_bundle: str | None = None
    cpus: float = 2.0
    keep_workspace: bool = False
    max_tokens: int | None = None  # model tokens (in + out) one heal may spend
    max_usd: float | None = None  # model dollars one heal may spend
    targets: tuple[str, ...] = ()  # heal only failing tests matching these ids or paths (e.g. from `/heal`)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


_INT_KEYS = {"max_candidates", "seed", "flake_reruns", "memory_mb", "max_processes", "max_tokens"}
_FLOAT_KEYS = {"timeout", "test_timeout", "max_minutes", "cpus", "max_usd"}
_TUPLE_KEYS = {"source", "protected"}
_STR_KEYS = {
    "test_command",
    "python",
    "provider",
    "sandbox",
    "sandbox_image",
    "setup_command",
    "sandbox_ca_bundle",
}
_FILE_KEYS = _INT_KEYS | _FLOAT_KEYS | _TUPLE_KEYS | _STR_KEYS | {"namespaces"}


def read_repo_settings(repo: Path) -> dict[str, Any]:
    """The `[tool.selfheal]` table of the repo's pyproject.toml, keys normalized."""
    pyproject = repo / "pyproject.toml"
    if not pyproject.is_file():
        return {}
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{pyproject}: not valid TOML: {exc}") from exc
    table = data.get("tool", {}).get("selfheal", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.selfheal] must be a table")
    settings: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key not in _FILE_KEYS:
            raise ConfigError(
                f"{pyproject}: unknown key {raw_key!r} in [tool.selfheal]; "
                f"known keys: {', '.join(sorted(k.replace('_', '-') for k in _FILE_KEYS))}"
            )
        settings[key] = _coerce(pyproject, raw_key, key, value)
    return settings


def _coerce(origin: Path, raw_key: str, key: str, value: Any) -> Any:
    try:
        if key in _INT_KEYS:
            if isinstance(value, bool):
                raise TypeError
            return int(value)
        if key in _FLOAT_KEYS:
            if isinstance(value, bool):
                raise TypeError
            return float(value)
        if key in _TUPLE_KEYS:
            if isinstance(value, str):
                return (value,)
            if not all(isinstance(item, str) for item in value):
                raise TypeError
            return tuple(value)
        if key in _STR_KEYS:
            if not isinstance(value, str):
                raise TypeError
            return value
        if not isinstance(value, bool):
            raise TypeError
        return value
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{origin}: [tool.selfheal] {raw_key} has an invalid value {value!r}") from exc


def build_config(repo: Path, flags: dict[str, Any]) -> HealConfig:
    """Flags (None means not given) over the repo's settings over defaults."""
    settings = read_repo_settings(repo)
    known = {f.name for f in fields(HealConfig)}
    merged = {**settings, **{k: v for k, v in flags.items() if v is not None and k in known}}
    config = replace(HealConfig(repo=repo), **merged)
    _validate(config)
    return config


def _validate(config: HealConfig) -> None:
    checks = [
        (config.max_candidates >= 1, "--max-candidates must be at least 1"),
        (config.timeout > 0, "--timeout must be positive"),
        (config.test_timeout > 0, "test-timeout must be positive"),
        (config.max_minutes > 0, "--max-minutes must be positive"),
        (config.flake_reruns >= 0, "flake-reruns must be 0 or more"),
        (bool(config.test_command.strip()), "the test command is empty"),
        (config.memory_mb >= 128, "memory-mb must be at least 128"),
        (config.max_processes >= 8, "max-processes must be at least 8"),
        (config.cpus > 0, "cpus must be positive"),
        (config.max_tokens is None or config.max_tokens > 0, "--max-tokens must be positive"),
        (config.max_usd is None or config.max_usd > 0, "--max-usd must be positive"),
        (
            config.sandbox in ("auto", "docker", "local"),
            f"unknown sandbox {config.sandbox!r}; choose auto, docker or local",
        ),
    ]
    for ok, message in checks:
        if not ok:
            raise ConfigError(message)
    make_provider(config.provider)  # raises ConfigError for a provider this build lacks


def choose_sandbox_for(config: HealConfig) -> tuple[Sandbox, str]:
    """The sandbox the config asks for, with its limits (and why `auto` fell back, if it did)."""
    limits = Limits(memory_mb=config.memory_mb, max_processes=config.max_processes, cpus=config.cpus)
    return choose_sandbox(
        config.sandbox, config.repo, limits=limits, namespaces=config.namespaces,
        image=config.sandbox_image, setup_command=config.setup_command, ca_bundle=config.sandbox_ca_bundle,
    )  # fmt: skip
