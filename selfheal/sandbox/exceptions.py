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


class SandboxError(Exception):
    pass


class SandboxUnavailable(SandboxError):
    pass


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
