"""Where code runs. Imports nothing else of selfheal (a test keeps it so)."""

from selfheal.sandbox.base import (
    STATE_DIR,
    Channel,
    ExecResult,
    Limits,
    Sandbox,
    SandboxInfo,
    Session,
)
from selfheal.sandbox.env import build_environment, is_secret_name
from selfheal.sandbox.local import LocalSandbox, LocalSession, shown_to_tests

__all__ = [
    "STATE_DIR",
    "Channel",
    "ExecResult",
    "Limits",
    "LocalSandbox",
    "LocalSession",
    "Sandbox",
    "SandboxInfo",
    "Session",
    "build_environment",
    "is_secret_name",
    "shown_to_tests",
]
