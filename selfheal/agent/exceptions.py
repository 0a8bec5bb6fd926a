"""Errors of the heal engine.

    SelfhealError
    ├── ConfigError          the request cannot be served as given (CLI exit code 2)
    │   ├── TargetError      the path to heal is missing, not a directory, or unreadable
    │   ├── InterpreterError the Python to run the tests with is missing or lacks pytest
    │   └── TestCommandError the test command does not exist or cannot be parsed
    └── HealError            a heal started but could not complete (report status "error")
        └── WorkspaceError   copying, snapshotting or diffing the workspace failed

A repository whose tests cannot run (syntax error, collection error, hang) is not an exception:
it is a result with status "error" and a message, because it says something about the repo.
"""


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


class HealError(SelfhealError):
    pass


class WorkspaceError(HealError):
    pass
