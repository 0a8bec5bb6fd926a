"""Errors of the sandbox layer.

    SandboxError
    ├── SandboxUnavailable   the backend asked for cannot run here (no engine, no image)
    └── SetupFailed          installing the repo's dependencies in the sandbox failed

A command that fails or times out inside a sandbox is not an error: it is an `ExecResult`.
"""


class SandboxError(Exception):
    pass


class SandboxUnavailable(SandboxError):
    pass


class SetupFailed(SandboxError):
    pass
