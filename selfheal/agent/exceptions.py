"""Errors of the heal engine.

    SelfhealError
    ├── ConfigError          the request cannot be served as given (CLI exit code 2)
    │   ├── TargetError      the path to heal is missing, not a directory, or unreadable
    │   ├── InterpreterError the Python to run the tests with is missing or lacks pytest
    │   ├── TestCommandError the test command does not exist or cannot be parsed
    │   └── PromptError      a prompt file is missing, broken, or rendered without its fields
    ├── HealError            a heal started but could not complete (report status "error")
    │   ├── WorkspaceError   copying, snapshotting or diffing the workspace failed
    │   └── ProviderError    a model provider failed, after the SDK's own retries (names provider + status)
    │       ├── ProviderRateLimited  429: the account's rate limit (retry_after when the API sent one)
    │       ├── ProviderOverloaded   529 (Anthropic) / 503: the service is overloaded for everyone
    │       ├── ProviderServerError  any other 5xx
    │       ├── ProviderBadRequest   400/404/413/422: the request or the model name was refused
    │       ├── ProviderAuthError    401/403: the key is missing, wrong or lacks permission
    │       └── ProviderUnavailable  no connection, or the call timed out
    └── AnswerError          a model's structured answer is unusable even after salvage; its
                             `feedback` is written for the model (for one retry)

HealStopped (a BaseException, not a SelfhealError) ends a heal early: its budget ran out or it
was asked to stop; the loop catches it and finishes the result with what was tried.

A provider that cannot be built (unknown name, missing API key, missing GGUF file or optional
library) is a ConfigError. A truncated answer (max_tokens) is not an error: the Reply says so in
`stop_reason`. No message or attribute of these errors ever carries an API key.

A repository whose tests cannot run (syntax error, collection error, hang) is not an exception:
it is a result with status "error" and a message, because it says something about the repo.
"""

import signal
from typing import Any


class SelfhealError(Exception):
    """Base of every error selfheal raises on purpose."""


class ConfigError(SelfhealError):
    pass


class TargetError(ConfigError):
    pass


class InterpreterError(ConfigError):
    pass


class TestCommandError(ConfigError):
    __test__ = False  # not a pytest test class


class PromptError(ConfigError):
    pass


class HealError(SelfhealError):
    pass


class WorkspaceError(HealError):
    pass


class ProviderError(HealError):
    """A model provider failed; `provider` names it, `status` is the HTTP status when there was one."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status: int | None = None,
        error_type: str | None = None,
        retry_after: float | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status
        self.error_type = error_type
        self.retry_after = retry_after
        self.request_id = request_id


class ProviderRateLimited(ProviderError):
    pass


class ProviderOverloaded(ProviderError):
    pass


class ProviderServerError(ProviderError):
    pass


class ProviderBadRequest(ProviderError):
    pass


class ProviderAuthError(ProviderError):
    pass


class ProviderUnavailable(ProviderError):
    pass


class AnswerError(SelfhealError):
    """A structured answer that salvage could not save. `feedback` tells the model what was wrong
    (where, why, the expected shape); `steps` are the salvage steps that were tried on it."""

    def __init__(self, feedback: str, *, steps: tuple[str, ...] = ()) -> None:
        super().__init__(feedback)
        self.feedback = feedback
        self.steps = steps


class HealStopped(BaseException):
    """The heal must end now: its budget ran out, or it was asked to stop. Raised where the heal
    is and caught by the loop, which finishes the result with what was tried. A BaseException, like
    KeyboardInterrupt, so that no step's `except Exception` (a model tool's) swallows it."""


class HealInterrupted(KeyboardInterrupt):
    """SIGTERM or Ctrl-C stopped a heal: `result` is what it had tried (a HealResult; typed
    loosely because the report stage comes after this shared module), for the caller to write
    before it exits. `signum`: the signal that raised `cause` (SIGINT for a plain Ctrl-C)."""

    def __init__(self, result: Any, cause: KeyboardInterrupt) -> None:
        super().__init__(self.describe(cause))
        self.result = result
        self.cause = cause
        self.signum = int(getattr(cause, "signum", signal.SIGINT))
        self.out_dir: Any = None  # the folder its report went to, once a caller wrote it

    @staticmethod
    def describe(cause: KeyboardInterrupt) -> str:
        """The signal that stopped the heal: SIGINT for a plain KeyboardInterrupt (Ctrl-C)."""
        return str(cause) or f"stopped by {signal.Signals(getattr(cause, 'signum', signal.SIGINT)).name}"
