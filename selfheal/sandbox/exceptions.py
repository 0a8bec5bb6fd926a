"""Errors of the sandbox layer.

    SandboxError
    ├── SandboxUnavailable   the backend asked for cannot run here (no engine, no image, or it
    │                        could not contain the commands as the caller requires)
    ├── SetupFailed          installing the repo's dependencies in the sandbox failed
    │   └── SetupRefused     the repo's requirements ask the networked set-up for something it
    │                        does not do (another index, a VCS checkout or a URL, unless the
    │                        operator allows them; or a line selfheal cannot classify); pip was
    │                        not asked for it
    ├── LimitExceeded        the commands outgrew a limit that ends the session (the workspace's
    │                        size); every later command raises it too
    ├── WorkspaceTrap        a file selfheal writes sits behind something the commands planted
    │                        (a link or a file where a folder should be, a folder where the file
    │                        should be); nothing was written through it
    └── SessionLost          the session itself stopped under the heal (the docker sandbox's
                             container killed or removed from outside)

A command that fails or times out inside a sandbox is not an error: it is an `ExecResult`.
"""

from __future__ import annotations

from selfheal.sandbox.addresses import without_addresses


class SandboxError(Exception):
    pass


class SandboxUnavailable(SandboxError):
    """`plain`: the same in one line for what is published (a pull request, a job summary, a
    comment), without the engine's own words, which name hosts and resolver addresses and stay
    in the report. By default the message without its network addresses."""

    def __init__(self, message: str, *, plain: str = "") -> None:
        super().__init__(message)
        self.plain = plain or without_addresses(message)


class SetupFailed(SandboxError):
    pass


class SetupRefused(SetupFailed):
    pass


class LimitExceeded(SandboxError):
    pass


class WorkspaceTrap(SandboxError):
    pass


class SessionLost(SandboxError):
    pass
