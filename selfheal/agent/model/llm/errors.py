"""The boundary between SDK failures and ours: HTTP status -> ProviderError subclass, keys kept out."""

from __future__ import annotations

from collections.abc import Mapping

from selfheal.agent.exceptions import (
    ConfigError,
    ProviderAuthError,
    ProviderBadRequest,
    ProviderError,
    ProviderOverloaded,
    ProviderRateLimited,
    ProviderServerError,
    ProviderUnavailable,
)
from selfheal.agent.model.llm.settings import Resolved

REDACTED = "[redacted]"


def read_key(resolved: Resolved, env: Mapping[str, str]) -> str | None:
    """The API key from the variable the settings name; ConfigError (naming the variable, not a
    value) when a provider that needs one has none."""
    if resolved.api_key_env is None:
        return None
    key = (env.get(resolved.api_key_env) or "").strip() or None
    if key is None and resolved.key_required:
        raise ConfigError(
            f"{resolved.provider}: no API key; set the environment variable {resolved.api_key_env}"
        )
    return key


def redact(text: str, secret: str | None) -> str:
    if secret and len(secret) >= 4:
        return text.replace(secret, REDACTED)
    return text


def status_error(
    provider: str,
    status: int,
    *,
    error_type: str | None = None,
    detail: str | None = None,
    retry_after: float | None = None,
    request_id: str | None = None,
    attempts: int | None = None,
    secret: str | None = None,
) -> ProviderError:
    """The ProviderError for an HTTP error answer, message like
    "anthropic: HTTP 529 overloaded_error: Overloaded (3 attempts)"."""
    if status == 429:
        cls: type[ProviderError] = ProviderRateLimited
    elif status in (503, 529) or error_type == "overloaded_error":
        cls = ProviderOverloaded
    elif status in (401, 403):
        cls = ProviderAuthError
    elif status >= 500:
        cls = ProviderServerError
    else:
        cls = ProviderBadRequest
    message = f"{provider}: HTTP {status}"
    if error_type:
        message += f" {error_type}"
    if detail:
        message += f": {detail}"
    notes = []
    if attempts is not None and attempts > 1:
        notes.append(f"{attempts} attempts")
    if retry_after is not None:
        notes.append(f"retry-after {retry_after:g}s")
    if request_id:
        notes.append(f"request-id {request_id}")
    if notes:
        message += f" ({', '.join(notes)})"
    return cls(
        redact(message, secret),
        provider=provider,
        status=status,
        error_type=error_type,
        retry_after=retry_after,
        request_id=request_id,
    )


def unavailable(
    provider: str, what: str, base_url: str | None, *, secret: str | None = None
) -> ProviderError:
    where = f" at {base_url}" if base_url else ""
    return ProviderUnavailable(redact(f"{provider}: {what}{where}", secret), provider=provider)


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:
            continue
    return None
