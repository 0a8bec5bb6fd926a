"""Which model answers, where it lives, what it costs: one frozen `ProviderSettings`.

Defaults are the real services; every default can be replaced by a field or an environment
variable (a field wins over the environment, the environment over the built-in default):

    provider   base URL: env, default                       key env            model env
    anthropic  ANTHROPIC_BASE_URL, https://api.anthropic.com ANTHROPIC_API_KEY  SELFHEAL_ANTHROPIC_MODEL
    ollama     OLLAMA_HOST, http://127.0.0.1:11434           OLLAMA_API_KEY *   SELFHEAL_OLLAMA_MODEL
    llamacpp   - (in-process; `model` is a GGUF file path)  -                  SELFHEAL_LLAMACPP_MODEL

(*) optional, only for a hosted Ollama that wants a bearer token.

Settings name the environment variable that holds a key, never the key: a key is read when a
provider is built, handed to the SDK client, and never logged, stored here or put in a message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from selfheal.agent.exceptions import ConfigError

PROVIDERS = ("anthropic", "llamacpp", "none", "ollama")
ROLES = ("spec_tests", "qa_adversarial", "debugger", "generator", "critic", "judge", "memory")


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens. Cache writes/reads default to Anthropic's usual 1.25x and 0.1x
    of the input price (5-minute cache)."""

    input_per_mtok: float
    output_per_mtok: float
    cache_write_per_mtok: float | None = None
    cache_read_per_mtok: float | None = None

    def cost(self, tokens_in: int, tokens_out: int, *, cache_write: int = 0, cache_read: int = 0) -> float:
        """Dollars for `tokens_in` uncached input tokens, `tokens_out` output tokens and the cached ones."""
        write = (
            self.cache_write_per_mtok if self.cache_write_per_mtok is not None else 1.25 * self.input_per_mtok
        )
        read = self.cache_read_per_mtok if self.cache_read_per_mtok is not None else 0.1 * self.input_per_mtok
        return (
            tokens_in * self.input_per_mtok
            + tokens_out * self.output_per_mtok
            + cache_write * write
            + cache_read * read
        ) / 1_000_000


# Anthropic list prices in USD per million input/output tokens, from platform.claude.com model pages
# (November 2026); check https://claude.com/pricing and override `prices` as they change. A dated
# name ("claude-haiku-4-5-20251001") is priced like its alias. Models not listed cost 0, with a warning.
DEFAULT_PRICES: Mapping[str, Price] = MappingProxyType(
    {
        "claude-fable-5-1": Price(10.0, 50.0),
        "claude-opus-5-5": Price(4.0, 20.0, cache_read_per_mtok=0.20),
        "claude-opus-5": Price(5.0, 25.0),
        "claude-sonnet-5-5": Price(2.0, 10.0),
        "claude-sonnet-5": Price(2.0, 10.0),
        "claude-opus-4-7": Price(5.0, 25.0),
        "claude-opus-4-6": Price(5.0, 25.0),
        "claude-opus-4-5": Price(5.0, 25.0),
        "claude-sonnet-4-6": Price(3.0, 15.0),
        "claude-sonnet-4-5": Price(3.0, 15.0),
        "claude-haiku-4-5": Price(1.0, 5.0),
    }
)
SCHEMA_VIA = ("output_format", "forced_tool")
MAX_PRICE = 10_000.0  # dollars per million tokens: a bound on typing errors, far above any list price

_DATE_SUFFIX = re.compile(r"[-@]\d{8}$")


@dataclass(frozen=True)
class ProviderDefaults:
    base_url_env: str | None
    base_url: str | None
    api_key_env: str | None
    model_env: str
    model: str | None
    key_required: bool


DEFAULTS: Mapping[str, ProviderDefaults] = MappingProxyType(
    {
        "anthropic": ProviderDefaults(
            "ANTHROPIC_BASE_URL",
            "https://api.anthropic.com",
            "ANTHROPIC_API_KEY",
            "SELFHEAL_ANTHROPIC_MODEL",
            "claude-sonnet-5-5",
            key_required=True,
        ),
        "ollama": ProviderDefaults(
            "OLLAMA_HOST",
            "http://127.0.0.1:11434",
            "OLLAMA_API_KEY",
            "SELFHEAL_OLLAMA_MODEL",
            "qwen2.5-coder:7b",
            key_required=False,
        ),
        "llamacpp": ProviderDefaults(None, None, None, "SELFHEAL_LLAMACPP_MODEL", None, key_required=False),
    }
)


@dataclass(frozen=True)
class RoleOverride:
    """Another provider and/or model for one role; None keeps the main setting."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class Resolved:
    """Settings for one provider with the environment and the defaults applied (no key inside)."""

    provider: str
    model: str
    base_url: str | None
    api_key_env: str | None
    key_required: bool


@dataclass(frozen=True)
class ProviderSettings:
    provider: str = "none"
    model: str | None = None  # None: $SELFHEAL_<PROVIDER>_MODEL, then the provider's default
    base_url: str | None = None  # None: the provider's environment variable, then the real service
    api_key_env: str | None = None  # the NAME of the variable holding the key; None: the provider's own
    timeout: float = 600.0  # seconds per HTTP request (the SDKs' own default; thinking models are slow)
    max_retries: int = 2  # the SDK's retries (429, 529, 5xx, connection errors), with its backoff
    prices: Mapping[str, Price] = field(default_factory=lambda: DEFAULT_PRICES)
    roles: Mapping[str, RoleOverride] = field(default_factory=dict)
    context_tokens: int | None = None  # context window: Ollama num_ctx, llama.cpp n_ctx
    temperature: float | None = None  # None: the provider's default (Claude 5 models refuse any other)
    # How Anthropic answers a `schema`: "output_format" = structured outputs (output_config.format,
    # Claude 4.5 and later), "forced_tool" = a forced tool whose input_schema is the schema (older
    # models; Claude Sonnet/Opus 5.5 refuse forced tool choice with a 400).
    schema_via: str = "output_format"

    def __post_init__(self) -> None:
        check_provider(self.provider)
        if self.timeout <= 0:
            raise ConfigError("provider timeout must be positive")
        if self.max_retries < 0:
            raise ConfigError("provider max-retries must be 0 or more")
        if self.context_tokens is not None and self.context_tokens < 256:
            raise ConfigError("provider context-tokens must be at least 256")
        if self.schema_via not in SCHEMA_VIA:
            raise ConfigError(f"provider schema-via must be one of: {', '.join(SCHEMA_VIA)}")
        for role, override in self.roles.items():
            check_role(role)
            if not isinstance(override, RoleOverride):
                raise ConfigError(f"role {role!r}: expected a RoleOverride, got {type(override).__name__}")
            if override.provider is not None:
                check_provider(override.provider)
        object.__setattr__(self, "prices", MappingProxyType(dict(self.prices)))
        object.__setattr__(self, "roles", MappingProxyType(dict(self.roles)))

    def for_role(self, role: str) -> ProviderSettings:
        """The settings one role runs with. A role that switches provider gets that provider's
        defaults for model, base URL and key variable unless its override names them."""
        check_role(role)
        override = self.roles.get(role)
        if override is None:
            return self
        if override.provider is not None and override.provider != self.provider:
            return replace(
                self,
                provider=override.provider,
                model=override.model,
                base_url=override.base_url,
                api_key_env=None,
            )
        return replace(self, model=override.model or self.model, base_url=override.base_url or self.base_url)

    def resolve(self, name: str | None = None, env: Mapping[str, str] | None = None) -> Resolved:
        """Fields over environment over defaults, for provider `name` (default: `self.provider`)."""
        name = name or self.provider
        env = os.environ if env is None else env
        defaults = DEFAULTS.get(name)
        if defaults is None:
            raise ConfigError(f"provider {name!r} has no settings to resolve")
        model = self.model or env.get(defaults.model_env) or defaults.model
        if not model:
            raise ConfigError(
                f"{name}: no model configured; set {defaults.model_env} or the provider's model setting"
            )
        base_url = self.base_url or (env.get(defaults.base_url_env) if defaults.base_url_env else None)
        return Resolved(
            provider=name,
            model=model,
            base_url=base_url or defaults.base_url,
            api_key_env=self.api_key_env or defaults.api_key_env,
            key_required=defaults.key_required,
        )

    def price_for(self, model: str) -> Price | None:
        """The price of a model: its exact name, else its name without a date suffix."""
        return self.prices.get(model) or self.prices.get(_DATE_SUFFIX.sub("", model))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ProviderSettings:
        """Settings from a TOML-like table (keys with dashes or underscores), e.g.

        provider = "anthropic", model = "claude-sonnet-4-5", timeout = 60, max-retries = 4,
        prices = {"my-model" = {input = 1.0, output = 2.0}},
        roles = {debugger = {provider = "ollama", model = "qwen2.5-coder:14b"}}
        """
        known = {
            "provider",
            "model",
            "base_url",
            "api_key_env",
            "timeout",
            "max_retries",
            "prices",
            "roles",
            "context_tokens",
            "temperature",
            "schema_via",
        }
        kwargs: dict[str, Any] = {}
        for raw_key, value in data.items():
            key = str(raw_key).replace("-", "_")
            if key not in known:
                raise ConfigError(f"unknown provider setting {raw_key!r}; known: {', '.join(sorted(known))}")
            kwargs[key] = value
        try:
            if "prices" in kwargs:
                kwargs["prices"] = {**DEFAULT_PRICES, **_parse_prices(kwargs["prices"])}
            if "roles" in kwargs:
                kwargs["roles"] = _parse_roles(kwargs["roles"])
            for key in ("timeout", "temperature"):
                if key in kwargs and (
                    isinstance(kwargs[key], bool) or not isinstance(kwargs[key], int | float)
                ):
                    raise ConfigError(f"provider setting {key} must be a number")
            for key in ("max_retries", "context_tokens"):
                if key in kwargs and (isinstance(kwargs[key], bool) or not isinstance(kwargs[key], int)):
                    raise ConfigError(f"provider setting {key.replace('_', '-')} must be an integer")
            for key in ("provider", "model", "base_url", "api_key_env", "schema_via"):
                if key in kwargs and not isinstance(kwargs[key], str):
                    raise ConfigError(f"provider setting {key.replace('_', '-')} must be a string")
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise ConfigError(f"invalid provider settings: {exc}") from exc
        return cls(**kwargs)


def check_provider(name: str) -> None:
    if name not in PROVIDERS:
        raise ConfigError(f"unknown provider {name!r}; this build knows: {', '.join(PROVIDERS)}")


def _parse_prices(data: Any) -> dict[str, Price]:
    out: dict[str, Price] = {}
    for model, value in dict(data).items():
        if isinstance(value, Price):
            out[model] = value
        elif isinstance(value, Mapping):
            write, read = (
                value.get("cache_write", value.get("cache-write")),
                value.get("cache_read", value.get("cache-read")),
            )
            out[model] = Price(
                float(value["input"]),
                float(value["output"]),
                None if write is None else float(write),
                None if read is None else float(read),
            )
        else:
            tokens_in, tokens_out = value
            out[model] = Price(float(tokens_in), float(tokens_out))
    return out


def parse_provider_spec(spec: str) -> RoleOverride:
    """`PROVIDER[:MODEL]` -> RoleOverride. Split at the FIRST colon: provider names have none, while
    model names may (Ollama tags such as `qwen2.5-coder:7b`, a Windows path to a GGUF file), so
    `ollama:qwen2.5-coder:7b` is provider `ollama`, model `qwen2.5-coder:7b`."""
    provider, colon, model = spec.strip().partition(":")
    provider = provider.strip()
    if not provider:
        raise ConfigError(f"{spec!r}: expected PROVIDER[:MODEL], e.g. ollama:qwen2.5-coder:7b")
    check_provider(provider)
    if colon and not model.strip():
        raise ConfigError(f"{spec!r}: nothing after ':'; give a model or leave out the colon")
    return RoleOverride(provider=provider, model=model.strip() or None)


def parse_price_spec(spec: str) -> tuple[str, Price]:
    """`MODEL=INPUT,OUTPUT` in US dollars per million tokens (the command line's --price) ->
    (model, price)."""
    model, equals, rest = spec.partition("=")
    parts = [p.strip() for p in rest.split(",")]
    try:
        if not (equals and model.strip() and len(parts) == 2):
            raise ValueError
        price = Price(float(parts[0]), float(parts[1]))
    except ValueError:
        raise ConfigError(
            f"{spec!r}: expected MODEL=INPUT,OUTPUT in US dollars per million tokens, e.g. my-model=3,15"
        ) from None
    if not (0 <= price.input_per_mtok <= MAX_PRICE and 0 <= price.output_per_mtok <= MAX_PRICE):
        raise ConfigError(f"{spec!r}: a price is between 0 and {MAX_PRICE:g} dollars per million tokens")
    return model.strip(), price


def parse_role_spec(spec: str) -> tuple[str, RoleOverride]:
    """`ROLE=PROVIDER[:MODEL]` (the command line's --role) -> (role, override). The role is what
    comes before the first "=" (dashes or underscores: qa-adversarial = qa_adversarial); the rest
    is split by `parse_provider_spec`."""
    role, equals, rest = spec.partition("=")
    role = role.strip().replace("-", "_")
    if not equals or not role:
        raise ConfigError(f"{spec!r}: expected ROLE=PROVIDER[:MODEL], e.g. generator=ollama:qwen2.5-coder:7b")
    check_role(role)
    return role, parse_provider_spec(rest)


def check_role(role: str) -> None:
    if role not in ROLES:
        raise ConfigError(f"unknown role {role!r}; roles are: {', '.join(ROLES)}")


def _parse_roles(data: Any) -> dict[str, RoleOverride]:
    if not isinstance(data, Mapping):
        raise ConfigError("roles must be a table of role = {provider = ..., model = ...}")
    out: dict[str, RoleOverride] = {}
    for raw_role, value in dict(data).items():
        role = str(raw_role).replace("-", "_")
        check_role(role)
        if isinstance(value, RoleOverride):
            out[role] = value
            continue
        if isinstance(value, str):  # the command line's shorthand also works in a file
            out[role] = parse_provider_spec(value)
            continue
        if not isinstance(value, Mapping):
            raise ConfigError(
                f'role {role!r}: expected a table such as {{provider = "ollama", model = "..."}} '
                'or a string "PROVIDER[:MODEL]"'
            )
        extra = set(value) - {"provider", "model", "base_url", "base-url"}
        if extra:
            raise ConfigError(f"role {role!r}: unknown keys {sorted(extra)}; use provider, model, base-url")
        fields_ = {
            "provider": value.get("provider"),
            "model": value.get("model"),
            "base_url": value.get("base_url", value.get("base-url")),
        }
        for name, item in fields_.items():
            if item is not None and not isinstance(item, str):
                raise ConfigError(f"role {role!r}: {name.replace('_', '-')} must be a string")
        out[role] = RoleOverride(**fields_)
    return out
