"""The repo's test command, parsed once.

A command like `python -m pytest -q tests` or `pytest -x` is recognised as pytest: its options are
kept for targeted runs (node ids replace its paths) and its interpreter is replaced by the one the
heal uses. Any other command (`make test`, `hatch run test`) runs as given; selfheal still gets
per-test outcomes because its pytest options travel in `PYTEST_ADDOPTS`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from selfheal.agent.exceptions import TestCommandError

SHELL_SYNTAX = re.compile(r"[|&;<>()$`]")
PYTHON_NAME = re.compile(r"^python(\d+(\.\d+)?)?$")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# pytest options whose value is the next token (so that token is not a test path).
VALUE_OPTIONS = {
    "-k",
    "-m",
    "-p",
    "-c",
    "-o",
    "-W",
    "--rootdir",
    "--confcutdir",
    "--basetemp",
    "--deselect",
    "--ignore",
    "--ignore-glob",
    "--junitxml",
    "--junit-xml",
    "--log-level",
    "--log-file",
    "--cov",
    "--cov-report",
    "--cov-config",
    "--cov-fail-under",
    "--maxfail",
    "--tb",
    "-n",
    "--dist",
    "--durations",
    "--import-mode",
    "--capture",
    "--override-ini",
    "--config-file",
}


@dataclass(frozen=True)
class TestCommand:
    __test__ = False  # not a pytest test class

    text: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    pytest_prefix: tuple[str, ...] | None
    pytest_options: tuple[str, ...]
    uses_shell: bool

    @classmethod
    def parse(cls, text: str, python: str, root: Path) -> TestCommand:
        try:
            tokens = shlex.split(text)
        except ValueError as exc:
            raise TestCommandError(f"cannot parse test command {text!r}: {exc}") from exc
        if not tokens:
            raise TestCommandError("the test command is empty")
        env = []
        while tokens and ENV_ASSIGNMENT.match(tokens[0]):
            name, _, value = tokens.pop(0).partition("=")
            env.append((name, value))
        if not tokens:
            raise TestCommandError(f"test command {text!r} only sets variables")
        if SHELL_SYNTAX.search(text):
            return cls(text, ("sh", "-c", text), (), None, (), True)

        prefix, rest = _pytest_prefix(tokens, python)
        if prefix is None:
            if PYTHON_NAME.match(tokens[0]):
                tokens = [python, *tokens[1:]]
            return cls(text, tuple(tokens), tuple(env), None, (), False)
        options = tuple(_options_only(rest, root))
        return cls(text, (*prefix, *rest), tuple(env), prefix, options, False)

    @property
    def is_pytest(self) -> bool:
        return self.pytest_prefix is not None

    def targeted(self, nodeids: list[str], python: str) -> list[str]:
        """Argv that runs only `nodeids`, keeping the command's own pytest options."""
        if self.pytest_prefix is not None:
            return [*self.pytest_prefix, *self.pytest_options, *nodeids]
        return [python, "-m", "pytest", *nodeids]


def _pytest_prefix(tokens: list[str], python: str) -> tuple[tuple[str, ...] | None, list[str]]:
    head = Path(tokens[0]).name
    if head in ("pytest", "py.test"):
        return (python, "-m", "pytest"), tokens[1:]
    if (PYTHON_NAME.match(head) or tokens[0] == python) and tokens[1:3] == ["-m", "pytest"]:
        return (python, "-m", "pytest"), tokens[3:]
    return None, tokens


def _options_only(args: list[str], root: Path) -> list[str]:
    """Drop positional test paths; keep options and their values."""
    kept: list[str] = []
    expect_value = False
    for arg in args:
        if expect_value:
            kept.append(arg)
            expect_value = False
        elif arg.startswith("-"):
            kept.append(arg)
            expect_value = arg in VALUE_OPTIONS
        elif "::" in arg or (root / arg).exists():
            continue
        else:
            kept.append(arg)
    return kept
