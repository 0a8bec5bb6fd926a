"""The action's inputs, parsed once from the runner's environment into one typed value.

A Docker container action receives input `foo-bar` as `INPUT_FOO-BAR` (name upper-cased, spaces
to underscores, dashes kept); `INPUT_FOO_BAR` is accepted too, for hand-written environments.

The model: `provider` left empty means anthropic when `anthropic-api-key` is set, else ollama when
`ollama-host` is set, else none (the search alone, no model call). A provider named without its key
or host is an input error (exit 2), said before anything runs. On GitHub a heal that may spend
money gets DEFAULT_MAX_USD unless `max-usd` says otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from selfheal.agent.exceptions import ConfigError
from selfheal.agent.model.llm.settings import parse_price_spec, parse_role_spec

# dollars one heal may spend on a paid model when the workflow does not say (input max-usd)
DEFAULT_MAX_USD = 1.0
ACTION_PROVIDERS = ("none", "anthropic", "ollama")

TRUE, FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off", ""}


@dataclass(frozen=True)
class ActionInputs:
    github_token: str
    provider: str = "none"
    model: str = ""
    roles: tuple[str, ...] = ()  # ROLE=PROVIDER[:MODEL], as `selfheal heal --role` takes them
    model_prices: tuple[str, ...] = ()  # MODEL=INPUT,OUTPUT, as `selfheal heal --price` takes them
    anthropic_api_key: str = ""
    ollama_host: str = ""
    test_command: str = ""
    max_iterations: int | None = None
    max_minutes: float | None = None
    max_tokens: int | None = None
    max_usd: float | None = DEFAULT_MAX_USD
    sandbox: str = "auto"
    sandbox_image: str = ""
    allow_direct_requirements: bool = False
    permission: str = "write"
    mode: str = "auto"
    draft: bool = False
    dry_run: bool = False
    protected_paths: tuple[str, ...] = ()
    commit_author: str = ""
    accept_unsafe_sandbox: bool = False
    publish_with: str = "git"
    memory: bool = True  # the repository's selfheal-memory branch: recalled from and added to
    memory_key: str = field(default="", repr=False)  # signs the memory records

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values never to be shown anywhere."""
        return tuple(s for s in (self.github_token, self.anthropic_api_key, self.memory_key) if s)


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


def _provider(env: Mapping[str, str]) -> str:
    named = _raw(env, "provider").lower()
    if not named:
        if _raw(env, "anthropic-api-key"):
            return "anthropic"
        return "ollama" if _raw(env, "ollama-host") else "none"
    if named not in ACTION_PROVIDERS:
        raise ConfigError(f"input provider: {named!r}; choose one of {', '.join(ACTION_PROVIDERS)}")
    return named


def _roles(env: Mapping[str, str]) -> tuple[str, ...]:
    specs = tuple(line.strip() for line in _raw(env, "roles").splitlines() if line.strip())
    for spec in specs:
        try:
            _, override = parse_role_spec(spec)
        except ConfigError as exc:
            raise ConfigError(f"input roles: {exc}") from exc
        if override.provider not in ACTION_PROVIDERS:
            raise ConfigError(
                f"input roles: {spec!r}: the Action's providers are {', '.join(ACTION_PROVIDERS)}"
            )
    return specs


def _prices(env: Mapping[str, str]) -> tuple[str, ...]:
    specs = tuple(line.strip() for line in _raw(env, "model-prices").splitlines() if line.strip())
    for spec in specs:
        try:
            parse_price_spec(spec)
        except ConfigError as exc:
            raise ConfigError(f"input model-prices: {exc}") from exc
    return specs


def _check_reachable(inputs: ActionInputs) -> None:
    """Every provider the inputs name has what it needs: Anthropic its key, Ollama its host."""
    used = {inputs.provider} | {parse_role_spec(spec)[1].provider for spec in inputs.roles}
    if "anthropic" in used and not inputs.anthropic_api_key:
        raise ConfigError(
            "provider anthropic needs the input anthropic-api-key, which is empty: add a repository "
            "secret ANTHROPIC_API_KEY (Settings > Secrets and variables > Actions) and pass it with "
            "`anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }}` (a pull request from a fork gets "
            "no secrets, and is not healed with a model)"
        )
    if "ollama" in used and not inputs.ollama_host:
        raise ConfigError(
            "provider ollama needs the input ollama-host, which is empty: the URL of an Ollama server "
            "the action's container can reach (e.g. http://ollama.internal:11434)"
        )
    if inputs.model and inputs.provider == "none":
        raise ConfigError("input model names a model, but provider is none: set provider or the key")


def parse_inputs(env: Mapping[str, str]) -> ActionInputs:
    provider = _provider(env)
    max_usd = _number(env, "max-usd", float)
    inputs = ActionInputs(
        github_token=_raw(env, "github-token"),
        provider=provider,
        model=_raw(env, "model"),
        roles=_roles(env),
        model_prices=_prices(env),
        anthropic_api_key=_raw(env, "anthropic-api-key"),
        ollama_host=_raw(env, "ollama-host"),
        test_command=_raw(env, "test-command"),
        max_iterations=_number(env, "max-iterations", int),  # type: ignore[arg-type]
        max_minutes=_number(env, "max-minutes", float),
        max_tokens=_number(env, "max-tokens", int),  # type: ignore[arg-type]
        max_usd=DEFAULT_MAX_USD if max_usd is None else max_usd,
        sandbox=_choice(env, "sandbox", "auto", ("auto", "docker", "local")),
        sandbox_image=_raw(env, "sandbox-image"),
        allow_direct_requirements=_bool(env, "allow-direct-requirements", False),
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
        memory_key=_raw(env, "memory-key"),
    )
    _check_reachable(inputs)
    return inputs
