"""One pytest run of a task copy, as its CI would run it, with every test's outcome by node id."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

RUN_TIMEOUT_S = 600
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # a project's ini may force colour on
# `-rA` prints one line per test at the end: "PASSED tests/test_a.py::test_b", "FAILED ... - why"
OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+(\S.*?)(?:\s+-\s.*)?$")
# pytest >= 9 prints a unittest test whose subTest()s failed as PASSED, and each failed subtest on
# its own line: "SUBFAILED(n=3) tests/test_a.py::T::test_b - why"; the test did fail
SUBFAILED = re.compile(r"^SUBFAILED\S*(?:\s.*)?$")


@dataclass(frozen=True)
class PytestRun:
    returncode: int
    outcomes: dict[str, str]  # node id -> PASSED | FAILED | ERROR | ...
    output: str
    timed_out: bool = False

    def failed(self) -> set[str]:
        return {test for test, outcome in self.outcomes.items() if outcome in ("FAILED", "ERROR")}

    def passed(self) -> set[str]:
        return {test for test, outcome in self.outcomes.items() if outcome in ("PASSED", "XFAIL", "SKIPPED")}


def python_path(root: Path) -> str:
    """What the project's CI has importable: the repo root and, for a src layout, src/."""
    return os.pathsep.join(str(p) for p in (root, root / "src") if p.is_dir())


def run_pytest(root: Path, args: list[str], timeout: float = RUN_TIMEOUT_S) -> PytestRun:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONPATH"}
    env.update(PYTHONPATH=python_path(root), PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *args, "--color=no"]
    process = subprocess.Popen(
        command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        # a suite may print bytes that are no UTF-8 (a test of undecodable file names)
        encoding="utf-8", errors="replace",
        start_new_session=True,
    )  # fmt: skip
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return PytestRun(-1, {}, output[-3000:], timed_out=True)
    return PytestRun(process.returncode, parse_outcomes(output), output[-3000:])


def parse_outcomes(output: str) -> dict[str, str]:
    """Node id -> outcome from the `-rA` summary; a test with a failed subtest is FAILED."""
    outcomes: dict[str, str] = {}
    subfailed = []
    for line in ANSI.sub("", output).splitlines():
        match = OUTCOME.match(line)
        if match:
            outcomes[match[2]] = match[1]
        elif SUBFAILED.match(line):
            subfailed.append(line)
    for line in subfailed:
        # the subtest's description may hold spaces: find the test's own node id in the line
        for test in outcomes:
            if line.endswith(f" {test}") or f" {test} - " in line:
                outcomes[test] = "FAILED"
    return outcomes


def covers(listed: str, test: str) -> bool:
    """A manifest id names the test, or every parametrization of it."""
    return test == listed or test.startswith(listed + "[")
