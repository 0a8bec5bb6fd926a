"""The action's inputs, parsed once from the runner's environment into one typed value.

A Docker container action receives input `foo-bar` as `INPUT_FOO-BAR` (name upper-cased, spaces
to underscores, dashes kept); `INPUT_FOO_BAR` is accepted too, for hand-written environments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from selfheal.agent.exceptions import ConfigError

TRUE, FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off", ""}


@dataclass(frozen=True)
class ActionInputs:
    github_token: str
    provider: str = "none"
    model: str = ""
    anthropic_api_key: str = ""
    ollama_host: str = ""
    test_command: str = ""
    max_iterations: int | None = None
    max_minutes: float | None = None
    max_tokens: int | None = None
    max_usd: float | None = None
    sandbox: str = "auto"
    sandbox_image: str = ""
    permission: str = "write"
    mode: str = "auto"
    draft: bool = False
    dry_run: bool = False
    protected_paths: tuple[str, ...] = ()
    commit_author: str = ""
    accept_unsafe_sandbox: bool = False
    publish_with: str = "git"
    memory: bool = True  # the repository's selfheal-memory branch: recalled from and added to

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values never to be shown anywhere."""
        return tuple(s for s in (self.github_token, self.anthropic_api_key) if s)


def _raw(env: Mapping[str, str], name: str) -> str:
    upper = name.upper().replace(" ", "_")
    for key in (f"INPUT_{upper}", f"INPUT_{upper.replace('-', '_')}"):
        if key in env:
            return env[key].strip()
    return ""


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = _raw(env, name).lower()
    if not value:
        return default
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ConfigError(f"input {name}: {value!r} is not true or false")


def _number(env: Mapping[str, str], name: str, kind: type) -> int | float | None:
    value = _raw(env, name)
    if not value:
        return None
    try:
        number = kind(value)
    except ValueError as exc:
        raise ConfigError(f"input {name}: {value!r} is not a number") from exc
    if number <= 0:
        raise ConfigError(f"input {name}: must be positive, got {value}")
    return number


def _choice(env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...]) -> str:
    value = _raw(env, name).lower() or default
    if value not in choices:
        raise ConfigError(f"input {name}: {value!r}; choose one of {', '.join(choices)}")
    return value


def parse_inputs(env: Mapping[str, str]) -> ActionInputs:
    return ActionInputs(
        github_token=_raw(env, "github-token"),
        provider=_raw(env, "provider").lower() or "none",
        model=_raw(env, "model"),
        anthropic_api_key=_raw(env, "anthropic-api-key"),
        ollama_host=_raw(env, "ollama-host"),
        test_command=_raw(env, "test-command"),
        max_iterations=_number(env, "max-iterations", int),  # type: ignore[arg-type]
        max_minutes=_number(env, "max-minutes", float),
        max_tokens=_number(env, "max-tokens", int),  # type: ignore[arg-type]
        max_usd=_number(env, "max-usd", float),
        sandbox=_choice(env, "sandbox", "auto", ("auto", "docker", "local")),
        sandbox_image=_raw(env, "sandbox-image"),
        permission=_choice(env, "permission", "write", ("read", "triage", "write", "maintain", "admin")),
        mode=_choice(env, "mode", "auto", ("auto", "review")),
        draft=_bool(env, "draft", False),
        dry_run=_bool(env, "dry-run", False),
        protected_paths=tuple(
            p.strip() for p in re.split(r"[\n,]", _raw(env, "protected-paths")) if p.strip()
        ),
        commit_author=_raw(env, "commit-author"),
        accept_unsafe_sandbox=_bool(env, "accept-unsafe-sandbox", False),
        publish_with=_choice(env, "publish-with", "git", ("git", "api")),
        memory=_bool(env, "memory", True),
    )
