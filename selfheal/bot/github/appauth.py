"""GitHub App authentication: the app's id and private key -> an installation token per installation.

PyGithub does the protocol: `Auth.AppAuth` signs the RS256 JWT, `GithubIntegration` trades it for
an installation token (`POST /app/installations/{id}/access_tokens`, the same call
`AppAuth.get_installation_auth(...)` makes when it refreshes). What is added here: a cache, so each
installation gets a new token only when the cached one would expire before the job using it ends,
and errors mapped to the bot's hierarchy.

The private key is read once from its file and held only inside PyGithub's signer; the tokens live in
this object's cache. Neither is in any repr, message or log line: GitHub's error texts are reduced
to their `message` field, and every issued token is registered with the server's Redactor.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from github import Auth, GithubException, GithubIntegration

from selfheal.bot.exceptions import CredentialsError, GitHubError, ServerConfigError
from selfheal.bot.github.client import DEFAULT_API_URL, SafeRetry

R = TypeVar("R")
REFRESH_MARGIN = timedelta(minutes=5)  # a cached token is never handed out closer to its end

# PyGithub logs response bodies at DEBUG, and the access-token response is the token itself.
logging.getLogger("github").setLevel(logging.INFO)


@dataclass(frozen=True)
class InstallationToken:
    installation_id: int
    expires_at: datetime
    token: str = field(repr=False)

    def valid_for(self, now: datetime) -> timedelta:
        return self.expires_at - now


class AppTokens:
    def __init__(
        self,
        app_id: str,
        private_key: str,
        *,
        api_url: str = DEFAULT_API_URL,
        on_token: Callable[[str], None] | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        timeout: int = 30,
    ) -> None:
        self.app_id = app_id
        self.api_url = api_url.rstrip("/")
        self._on_token = on_token
        self._clock = clock
        try:
            auth = Auth.AppAuth(int(app_id) if app_id.isdigit() else app_id, private_key)
            auth.create_jwt()  # fails now, not on the first delivery, when the key is not a usable key
        except Exception as exc:  # PyJWT/cryptography raise several types; none carries the key
            raise ServerConfigError(
                f"the app's private key could not sign a JWT ({type(exc).__name__}): "
                "pass the PEM file GitHub generated for the app"
            ) from None
        self._integration = GithubIntegration(
            auth=auth,
            base_url=self.api_url,
            timeout=timeout,
            retry=SafeRetry(total=3, backoff_factor=0.5, secondary_rate_wait=30, max_rate_limit_wait=60),
        )
        self._auth = auth
        self._lock = threading.Lock()
        self._cache: dict[tuple[int, str | None, tuple[tuple[str, str], ...]], InstallationToken] = {}

    @classmethod
    def from_key_file(cls, app_id: str, path: Path, **kwargs: Any) -> AppTokens:
        try:
            key = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            raise ServerConfigError(f"--private-key {path}: {reason}") from None
        if "PRIVATE KEY-----" not in key:
            raise ServerConfigError(f"--private-key {path}: not a PEM private key")
        return cls(app_id, key, **kwargs)

    def __repr__(self) -> str:
        return f"AppTokens(app_id={self.app_id!r}, api_url={self.api_url!r}, cached={len(self._cache)})"

    # -- tokens ---------------------------------------------------------------------------------------
    def token(
        self,
        installation_id: int,
        *,
        valid_for: timedelta = timedelta(0),
        repo: str | None = None,
        permissions: Mapping[str, str] | None = None,
    ) -> str:
        """An installation token that stays valid for at least `valid_for` (plus a margin). With
        `repo` and `permissions`, narrowed to that one repository and those permissions: an
        installation on a whole organisation would otherwise hand each job a token for all of it."""
        wanted = valid_for + REFRESH_MARGIN
        key = (installation_id, repo, tuple(sorted((permissions or {}).items())))
        with self._lock:
            cached = self._cache.get(key)
            if cached and cached.valid_for(self._clock()) > wanted:
                return cached.token
            body: dict[str, Any] = {}
            if repo:
                body["repositories"] = [repo.partition("/")[2] or repo]
            if permissions:
                body["permissions"] = dict(permissions)
            _, data = self._call(
                f"get a token for installation {installation_id}",
                lambda: self._integration.requester.requestJsonAndCheck(
                    "POST", f"/app/installations/{installation_id}/access_tokens",
                    headers={"Authorization": f"Bearer {self._auth.create_jwt()}"}, input=body,
                ),
            )  # fmt: skip
            expires = datetime.fromisoformat(str(data["expires_at"]).replace("Z", "+00:00"))
            issued = InstallationToken(installation_id, _aware(expires), str(data["token"]))
            if self._on_token:
                self._on_token(issued.token)
            # GitHub's tokens live an hour; one that lives less than `wanted` is still used (and
            # replaced on the next call): a job longer than the token's life cannot be helped here.
            self._cache[key] = issued
            return issued.token

    def installation_for(self, repo: str) -> int:
        """The installation id of the app on `repo` (`GET /repos/{owner}/{repo}/installation`)."""
        owner, _, name = repo.partition("/")
        found = self._call(
            f"find the app's installation on {repo}",
            lambda: self._integration.get_repo_installation(owner, name),
        )
        return int(found.id)

    def app_name(self) -> str:
        """The app's slug (`GET /app`): proves the id and key work, before any delivery arrives."""
        app = self._call("read the app (GET /app)", self._integration.get_app)
        return str(app.slug)

    def _call(self, what: str, fn: Callable[[], R]) -> R:
        try:
            return fn()
        except GithubException as exc:
            message = exc.data.get("message") if isinstance(exc.data, dict) else None
            said = f": {message}" if isinstance(message, str) else ""
            if exc.status == 401:
                raise CredentialsError(
                    f"GitHub rejected the app's JWT trying to {what} (401{said}); check --app-id and "
                    "--private-key"
                ) from None
            if exc.status in (403, 404):
                raise CredentialsError(
                    f"GitHub answered {exc.status} trying to {what}{said}: is the app installed there, "
                    "and not suspended?"
                ) from None
            raise GitHubError(f"GitHub answered {exc.status} trying to {what}{said}", exc.status) from None
        except OSError as exc:
            raise GitHubError(f"could not reach GitHub to {what}: {type(exc).__name__}") from None
        except (KeyError, ValueError, TypeError) as exc:
            name = type(exc).__name__
            raise GitHubError(f"GitHub's answer to {what} was not understood ({name})") from None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
