"""Errors of the GitHub side. Refusals and "nothing to do" are outcomes, not exceptions.

BotError
├── EventError        the event payload is missing, malformed or of an unknown kind
├── CredentialsError  no token, or GitHub rejects it
├── GitHubError       an API call failed after the client's own retries
└── GitError          clone, fetch or push failed
"""

from __future__ import annotations


class BotError(Exception):
    """Base class: selfheal itself could not do its job (exit code non-zero)."""


class EventError(BotError):
    pass


class CredentialsError(BotError):
    pass


class GitHubError(BotError):
    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class GitError(BotError):
    pass
