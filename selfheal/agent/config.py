"""One typed object for a heal's inputs, parsed once from flags and the repo's pyproject.

Precedence: command-line flags, then `[tool.selfheal]` in the target repo's `pyproject.toml`,
then defaults. Keys may be spelled with dashes or underscores.

The model settings sit in `[tool.selfheal.llm]` (what `ProviderSettings.from_mapping` takes; the
main `provider` may be named there or as the top-level key, not differently in both), per-role
overrides in `[tool.selfheal.llm.roles]`. A pyproject.toml is committed, so it never holds a key:
only the NAME of the environment variable that does (`api-key-env`).

Where the caller holds a key the repository must not steer (`caller_endpoints`: the Action and the
bot, whose keys are the workflow's secret or the server's), the repository's settings may choose
models and roles but never where a request goes or what it costs: its base URLs, its key variable
and its prices are ignored, and its roles may only name providers the caller configured. A
repository that could name the URL would receive the key in the request's header.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from selfheal.agent.exceptions import ConfigError
from selfheal.agent.model.llm import ProviderSettings, RoleOverride, providers_for_roles
from selfheal.agent.model.llm.settings import DEFAULT_PRICES, parse_price_spec, parse_role_spec
from selfheal.sandbox import Limits, Sandbox
from selfheal.sandbox.base import Fallback
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
    disk_mb: int = 1024  # how much the tests may add to the workspace before the heal stops
    namespaces: bool = True
    # Never from the repository's own settings (they are the code under suspicion): where the
    # commands would run uncontained (as root, or next to a token without namespaces), run them
    # anyway instead of refusing. `require_contained` is GitHub's floor (the Action, the bot).
    accept_unsafe_sandbox: bool = False
    require_contained: bool = False
    # Never from the repository either: the caller's key must not go where the repository says
    caller_endpoints: bool = False
    provider: str = "none"  # the main provider; `llm.provider` always equals it
    # the model settings: model, endpoint, key variable, timeouts, prices, per-role overrides
    llm: ProviderSettings = field(default_factory=ProviderSettings)
    max_iterations: int = 3  # repair rounds: each round repairs what the previous one left failing
    parallel: int = 2  # model answers asked at once for a repair, from different angles
    sandbox: str = "auto"  # auto | docker | local
    sandbox_image: str | None = None
    setup_command: str | None = None
    sandbox_ca_bundle: str | None = None
    # Never from the repository: may its requirements name another package index, a VCS checkout
    # or a URL for the docker sandbox's networked set-up (off: refused, the heal stops)
    allow_direct_requirements: bool = False
    cpus: float = 2.0
    keep_workspace: bool = False
    max_tokens: int | None = None  # model tokens (in + out) one heal may spend
    max_usd: float | None = None  # model dollars one heal may spend
    targets: tuple[str, ...] = ()  # heal only failing tests matching these ids or paths (e.g. from `/heal`)
    memory: bool = True  # recall earlier heals of this repository, and remember this one
    memory_path: Path | None = None  # the JSONL store; None: the repository's .selfheal/memory.jsonl
    # whether recalled records' lessons reach a model's prompts; on GitHub only where the operator's
    # key signed them (an unsigned record may be anyone's push: it may still order the search)
    memory_to_model: bool = True
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # `provider` is the one name callers set (flags, the Action's input, replace()); the
        # settings follow it so the two can never disagree about the main provider
        if self.llm.provider != self.provider:
            object.__setattr__(self, "llm", replace(self.llm, provider=self.provider))


_INT_KEYS = {
    "max_candidates",
    "seed",
    "flake_reruns",
    "memory_mb",
    "max_processes",
    "disk_mb",
    "max_tokens",
    "max_iterations",
    "parallel",
}
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
_FILE_KEYS = _INT_KEYS | _FLOAT_KEYS | _TUPLE_KEYS | _STR_KEYS | {
    "namespaces", "llm", "memory", "allow_direct_requirements",
}  # fmt: skip

# The repository's settings are part of the code under suspicion: they may say how its tests are
# run, never how they are contained. These are the caller's alone (flags, the Action's inputs); a
# repository that sets them is told so in the report, and its value is ignored.
_CALLER_ONLY = {
    "sandbox": "the sandbox backend",
    "sandbox_image": "the sandbox's image",
    "setup_command": "a setup command (it would run with a network)",
    "sandbox_ca_bundle": "a host file to copy into the sandbox",
    "allow_direct_requirements": "letting the set-up reach an index, VCS or URL the repository names",
    "python": "the interpreter (its folders are exposed to the tests)",
}
# Limits and budgets a repository may lower but not raise above the defaults: its tests' time, how
# hard selfheal works on it and how many model answers it asks for at once are the caller's to spend.
_CAPPED = ("memory_mb", "max_processes", "disk_mb", "cpus", "parallel", "timeout", "test_timeout",
           "max_minutes", "max_candidates", "max_iterations", "flake_reruns")  # fmt: skip
# Upper bounds on every number, whoever sets it: far above any real use, below what would hold a
# runner or a budget forever (a typing error, or a value meant to).
UPPER_BOUNDS: dict[str, float] = {
    "max_candidates": 100_000, "timeout": 86_400, "test_timeout": 3_600, "max_minutes": 1_440,
    "flake_reruns": 10, "memory_mb": 1 << 20, "max_processes": 65_536, "disk_mb": 1 << 20, "cpus": 1024,
    "max_tokens": 1_000_000_000, "max_usd": 10_000, "max_iterations": 20, "parallel": 8, "seed": 2**32 - 1,
}  # fmt: skip

# Key names that would put a secret into a committed file; refused wherever they appear.
_SECRET_KEYS = {"api_key", "key", "token", "secret", "password", "auth_token", "bearer", "apikey"}
_SECRET_SUFFIXES = ("_key", "_token", "_secret", "_password")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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
    _refuse_secrets(pyproject, "[tool.selfheal]", table)
    settings: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key not in _FILE_KEYS:
            raise ConfigError(
                f"{pyproject}: unknown key {raw_key!r} in [tool.selfheal]; "
                f"known keys: {', '.join(sorted(k.replace('_', '-') for k in _FILE_KEYS))}"
            )
        if key == "llm":
            continue
        settings[key] = _coerce(pyproject, raw_key, key, value)
    if "llm" in table:
        provider, llm = _read_llm_table(pyproject, table["llm"])
        if provider is not None:
            if settings.get("provider", provider) != provider:
                raise ConfigError(
                    f"{pyproject}: provider is {settings['provider']!r} in [tool.selfheal] but "
                    f"{provider!r} in [tool.selfheal.llm]; set it in one place"
                )
            settings["provider"] = provider
        settings["llm"] = llm
    return settings


def _read_llm_table(pyproject: Path, table: Any) -> tuple[str | None, ProviderSettings]:
    """(its provider, if it names one; the settings) of `[tool.selfheal.llm]`."""
    where = "[tool.selfheal.llm]"
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: {where} must be a table")
    _refuse_secrets(pyproject, where, table)
    roles = table.get("roles", {})
    if not isinstance(roles, dict):
        raise ConfigError(f"{pyproject}: {where} roles must be a table: [tool.selfheal.llm.roles]")
    for role, override in roles.items():
        if isinstance(override, dict):
            _refuse_secrets(pyproject, f"{where} roles.{role}", override)
    data = {str(k).replace("-", "_"): v for k, v in table.items()}
    provider = data.pop("provider", None)
    env_name = data.get("api_key_env")
    if isinstance(env_name, str) and not _ENV_NAME.fullmatch(env_name):
        # the value is not echoed: it may well be the key itself
        raise ConfigError(
            f"{pyproject}: {where} api-key-env must be the NAME of an environment variable "
            '(e.g. api-key-env = "MY_ANTHROPIC_KEY"), not a key; keys are never read from pyproject.toml'
        )
    urls = [data.get("base_url")]
    urls += [o.get("base_url", o.get("base-url")) for o in roles.values() if isinstance(o, dict)]
    if any(isinstance(url, str) and urlsplit(url).password for url in urls):
        raise ConfigError(
            f"{pyproject}: {where} a base-url carries a password; keys and passwords are never read "
            "from pyproject.toml: name the variable that holds the key with api-key-env"
        )
    try:
        settings = ProviderSettings.from_mapping(data)
        if provider is not None and not isinstance(provider, str):
            raise ConfigError("provider must be a string")
        if provider is not None:
            replace(settings, provider=provider)  # validates the name
    except ConfigError as exc:
        raise ConfigError(f"{pyproject}: {where} {exc}") from exc
    return provider, settings


def _refuse_secrets(pyproject: Path, where: str, table: Mapping[str, Any]) -> None:
    for raw_key in table:
        key = str(raw_key).replace("-", "_").lower()
        if key in _SECRET_KEYS or key.endswith(_SECRET_SUFFIXES):
            raise ConfigError(
                f"{pyproject}: {where} {raw_key}: a key is never read from pyproject.toml (it is "
                "committed with the code); put it in an environment variable and name that variable "
                'with api-key-env in [tool.selfheal.llm], e.g. api-key-env = "MY_ANTHROPIC_KEY"'
            )


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


def build_config(repo: Path, flags: dict[str, Any], env: Mapping[str, str] | None = None) -> HealConfig:
    """Flags (None means not given) over the repo's settings over defaults.

    Besides HealConfig's fields, flags may hold `model` (the main provider's model) and `roles`
    (`ROLE=PROVIDER[:MODEL]` strings, as --role takes them); both go into `llm`. `env` is where
    keys, endpoints and models are looked up (default os.environ; the CLI passes the mapping its
    secrets were handed over in, since they are no longer in its environment).
    """
    settings, overruled = _contain_repo_settings(read_repo_settings(repo))
    known = {f.name for f in fields(HealConfig)} - {"llm"}
    given = {k: v for k, v in flags.items() if v is not None and k in known}
    if given.get("caller_endpoints") and settings.get("llm") is not None:
        settings["llm"] = _contain_repo_endpoints(settings["llm"], _caller_providers(given, flags), overruled)
    merged = {**settings, **given}
    merged["llm"] = _merge_llm(
        settings.get("llm") or ProviderSettings(),
        file_provider=settings.get("provider"),
        flag_provider=given.get("provider"),
        provider=merged.get("provider", "none"),
        model=flags.get("model"),
        roles=flags.get("roles") or (),
    )
    if flags.get("prices"):
        # the caller's prices, over the list: what a model costs is never the repository's to say
        caller_prices = dict(parse_price_spec(spec) for spec in flags["prices"])
        merged["llm"] = replace(merged["llm"], prices={**merged["llm"].prices, **caller_prices})
    config = replace(HealConfig(repo=repo), **merged)
    if overruled:
        config.extra["setting_notes"] = overruled
    _validate(config, env)
    return config


def _contain_repo_settings(settings: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The repository's settings without what would loosen its sandbox, and what was dropped."""
    kept, notes = dict(settings), []
    for key, what in _CALLER_ONLY.items():
        if key in kept:
            kept.pop(key)
            name = key.replace("_", "-")
            notes.append(
                f"[tool.selfheal] {name} ignored: {what} is the caller's choice, not the repository's"
            )
    if kept.get("namespaces") is False:
        kept.pop("namespaces")
        notes.append(
            "[tool.selfheal] namespaces = false ignored: only the caller can turn the sandbox's "
            "namespaces off (--no-namespaces)"
        )
    if "protected" in kept:
        # the verdict's protection of tests and CI is not the repository's to lift: its globs add
        # to the defaults, whatever it lists (`protected = []` protects what the defaults do)
        own = tuple(kept["protected"])
        dropped = [glob for glob in DEFAULT_PROTECTED if glob not in own]
        kept["protected"] = tuple(dict.fromkeys((*DEFAULT_PROTECTED, *own)))
        if dropped:
            notes.append(
                f"[tool.selfheal] protected kept {', '.join(dropped)}: a repository may protect more "
                "paths, not unprotect its tests or CI"
            )
    defaults = HealConfig(repo=Path("."))
    for key in _CAPPED:
        if key in kept and kept[key] > getattr(defaults, key):
            notes.append(
                f"[tool.selfheal] {key.replace('_', '-')} = {kept[key]} lowered to {getattr(defaults, key)}: "
                "a repository may lower the sandbox's limits and selfheal's budgets, not raise them"
            )
            kept[key] = getattr(defaults, key)
    return kept, notes


def _caller_providers(given: Mapping[str, Any], flags: Mapping[str, Any]) -> set[str]:
    named = {"none", str(given.get("provider") or "none")}
    return named | {parse_role_spec(spec)[1].provider or "none" for spec in flags.get("roles") or ()}


def _contain_repo_endpoints(llm: ProviderSettings, available: set[str], notes: list[str]) -> ProviderSettings:
    """The repository's model settings without what would send the caller's key elsewhere or
    lift its budget: base URLs, the key variable, prices, roles on providers the caller did not set."""
    ignored = []
    if llm.base_url is not None:
        ignored.append("base-url")
    if llm.api_key_env is not None:
        ignored.append("api-key-env")
    if dict(llm.prices) != dict(DEFAULT_PRICES):
        ignored.append("prices")
    roles: dict[str, RoleOverride] = {}
    for role, override in llm.roles.items():
        if override.provider not in (None, *available):
            notes.append(
                f"[tool.selfheal.llm] roles.{role} ignored: provider {override.provider} is not one the "
                "workflow configured (its key and host are the workflow's to give)"
            )
            continue
        if override.base_url is not None:
            ignored.append(f"roles.{role}.base-url")
        roles[role] = replace(override, base_url=None)
    if ignored:
        notes.append(
            f"[tool.selfheal.llm] {', '.join(ignored)} ignored: where the key is sent, and what a "
            "model costs, are the workflow's settings, not the repository's"
        )
    return replace(llm, base_url=None, api_key_env=None, prices=DEFAULT_PRICES, roles=roles)


def _merge_llm(
    file_llm: ProviderSettings,
    *,
    file_provider: str | None,
    flag_provider: str | None,
    provider: str,
    model: str | None,
    roles: Iterable[str],
) -> ProviderSettings:
    """The file's model settings with the flags on top."""
    if model is not None and provider == "none":
        raise ConfigError("--model names a model for the main provider, which is none: add --provider")
    llm = file_llm
    if file_provider not in (None, "none", provider):
        # the file's model, endpoint and key variable belong to the provider the flag replaced
        llm = replace(llm, model=None, base_url=None, api_key_env=None)
    # an explicit "none" (the Action's default input) means no model at all, so the file's roles
    # go too: a role on a provider would otherwise still be built and need its key
    overrides: dict[str, RoleOverride] = {} if flag_provider == "none" else dict(llm.roles)
    for spec in roles:
        try:
            role, override = parse_role_spec(spec)
        except ConfigError as exc:
            raise ConfigError(f"--role {exc}") from exc
        overrides[role] = override  # the whole override: a flag does not inherit the file's model
    return replace(llm, provider=provider, model=model or llm.model, roles=overrides)


def _validate(config: HealConfig, env: Mapping[str, str] | None = None) -> None:
    checks = [
        (config.max_candidates >= 1, "--max-candidates must be at least 1"),
        (config.timeout > 0, "--timeout must be positive"),
        (config.test_timeout > 0, "test-timeout must be positive"),
        (config.max_minutes > 0, "--max-minutes must be positive"),
        (config.flake_reruns >= 0, "flake-reruns must be 0 or more"),
        (bool(config.test_command.strip()), "the test command is empty"),
        (config.memory_mb >= 128, "memory-mb must be at least 128"),
        (config.max_processes >= 8, "max-processes must be at least 8"),
        (config.disk_mb >= 16, "disk-mb must be at least 16"),
        (config.cpus > 0, "cpus must be positive"),
        (config.max_tokens is None or config.max_tokens > 0, "--max-tokens must be positive"),
        (config.max_usd is None or config.max_usd > 0, "--max-usd must be positive"),
        (config.max_iterations >= 1, "--max-iterations must be at least 1"),
        (1 <= config.parallel <= 8, "--parallel must be between 1 and 8"),
        (
            config.sandbox in ("auto", "docker", "local"),
            f"unknown sandbox {config.sandbox!r}; choose auto, docker or local",
        ),
    ]
    for key, bound in UPPER_BOUNDS.items():
        value = getattr(config, key)
        checks.append(
            (value is None or value <= bound, f"{key.replace('_', '-')} {value}: at most {bound:g}")
        )
    for ok, message in checks:
        if not ok:
            raise ConfigError(message)
    # building is cheap (no request, no model loaded) and says early what a role lacks: an
    # unknown provider, a key missing from its variable, llama-cpp-python or the GGUF file
    built = providers_for_roles(config.llm, env=env)
    if config.caller_endpoints:
        _refuse_unpriced(config, set(built), env)


def _refuse_unpriced(config: HealConfig, roles: set[str], env: Mapping[str, str] | None) -> None:
    """Under the caller's key a model without a price would count as free, and no dollar budget
    (the heal's, the bot's daily cap) would ever stop it: refused unless the caller prices it."""
    for role in sorted(roles):
        settings = config.llm.for_role(role)
        resolved = settings.resolve(env=env)
        if resolved.key_required and settings.price_for(resolved.model) is None:
            raise ConfigError(
                f"model {resolved.model!r} ({role}) has no price, so no dollar budget could hold under "
                f"the workflow's key; give its price: --price {resolved.model}=INPUT,OUTPUT in dollars "
                "per million tokens (the Action's model-prices input, the bot's --price)"
            )


def choose_sandbox_for(config: HealConfig) -> tuple[Sandbox, Fallback | None]:
    """The sandbox the config asks for, with its limits (and why `auto` fell back, if it did)."""
    limits = Limits(
        memory_mb=config.memory_mb,
        max_processes=config.max_processes,
        cpus=config.cpus,
        disk_mb=config.disk_mb,
    )
    return choose_sandbox(
        config.sandbox, config.repo, limits=limits, namespaces=config.namespaces,
        image=config.sandbox_image, setup_command=config.setup_command, ca_bundle=config.sandbox_ca_bundle,
        allow_direct_requirements=config.allow_direct_requirements,
        require_contained=config.require_contained, accept_unsafe=config.accept_unsafe_sandbox,
    )  # fmt: skip
