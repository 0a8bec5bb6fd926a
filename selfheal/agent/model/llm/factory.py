"""Building providers from settings: one for a name, or one per role (shared where roles agree)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from selfheal.agent.model.llm.accounting import MeteredProvider, UsageLedger
from selfheal.agent.model.llm.base import Provider
from selfheal.agent.model.llm.errors import read_key
from selfheal.agent.model.llm.settings import ROLES, ProviderSettings, check_provider


def make_provider(
    name: str, settings: ProviderSettings | None = None, *, env: Mapping[str, str] | None = None
) -> Provider | None:
    """The provider called `name`, configured by `settings` (model, base URL, key variable,
    timeout, retries, prices); None for "none". `env` defaults to os.environ.

    ConfigError: unknown name, no API key in the named variable, llama-cpp-python missing or
    no GGUF file. Building is cheap: no request is made and no model file is loaded.
    """
    check_provider(name)
    if name == "none":
        return None
    settings = settings or ProviderSettings()
    env = os.environ if env is None else env
    resolved = settings.resolve(name, env)
    if name == "anthropic":
        from selfheal.agent.model.llm.anthropic_provider import AnthropicProvider

        key = read_key(resolved, env)
        assert key is not None  # key_required
        return AnthropicProvider(resolved, settings, key)
    if name == "ollama":
        from selfheal.agent.model.llm.ollama_provider import OllamaProvider

        return OllamaProvider(resolved, settings, read_key(resolved, env))
    from selfheal.agent.model.llm.llamacpp_provider import LlamaCppProvider

    return LlamaCppProvider(resolved, settings)


def providers_for_roles(
    settings: ProviderSettings,
    *,
    env: Mapping[str, str] | None = None,
    ledger: UsageLedger | None = None,
) -> dict[str, Provider]:
    """A provider for every role that has one (roles on "none" are left out: the embedded engine
    does their work). Roles with the same provider, model and endpoint share one instance (one
    HTTP client, one loaded GGUF). With a ledger, each role's calls are recorded under its name."""
    built: dict[tuple[str, str | None, str | None, str | None], Provider | None] = {}
    out: dict[str, Provider] = {}
    for role in ROLES:
        role_settings = settings.for_role(role)
        key = (role_settings.provider, role_settings.model, role_settings.base_url, role_settings.api_key_env)
        if key not in built:
            built[key] = make_provider(role_settings.provider, role_settings, env=env)
        provider = built[key]
        if provider is not None:
            out[role] = MeteredProvider(provider, role, ledger) if ledger is not None else provider
    return out
