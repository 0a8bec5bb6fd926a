"""Errors of the GitHub side. Refusals and "nothing to do" are outcomes, not exceptions.

BotError
├── EventError        the event payload is missing, malformed or of an unknown kind
├── CredentialsError  no token, or GitHub rejects it (also: the App's JWT, a gone installation)
├── GitHubError       an API call failed after the client's own retries
├── GitError          clone, fetch or push failed
│   └── StoreTooLarge the memory branch's file is larger than selfheal ever writes: not read
├── SandboxRefused    no sandbox could keep the repository's code away from the token, and the
│                     workflow did not accept running it anyway (accept-unsafe-sandbox)
├── SandboxFailed     the sandbox broke under the heal (e.g. its container was killed)
├── ServerConfigError the bot server cannot start as configured (exit code 2)
└── QueueError        the job database cannot be opened, read or written
"""

from __future__ import annotations

from selfheal.sandbox.addresses import published
from selfheal.sandbox.exceptions import SandboxError


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


class LeaseLost(GitError):
    """A push refused because the branch no longer holds the commit the pusher saw there: another run
    moved it first. `maybe_arrived`: the refusal may also be a lost answer to the push itself."""

    def __init__(self, message: str, *, maybe_arrived: bool = False) -> None:
        super().__init__(message)
        self.maybe_arrived = maybe_arrived


class StoreTooLarge(GitError):
    pass


class SandboxRefused(BotError):
    pass


class SandboxFailed(BotError):
    pass


class ServerConfigError(BotError):
    pass


class QueueError(BotError):
    pass


def public_words(error: BaseException) -> str:
    """What a comment or the run's page says of `error`. An infrastructure error (GitHub, git, the
    sandbox) in its plain line, without the network addresses its own words name: those stay in
    the job log. An error in the event or the caller's input as it is (a field path such as
    `comment.id` is no host name), unless it wraps an infrastructure error and carries its plain
    line."""
    if isinstance(error, SandboxError) or (isinstance(error, BotError) and not isinstance(error, EventError)):
        return published(error)
    return getattr(error, "plain", "") or str(error)
