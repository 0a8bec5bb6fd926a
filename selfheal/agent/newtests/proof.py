"""The proof run for generated tests: each one on the base code, then on the patched code.

    TestProver(session, runner, base_text).prove(test_file, changes) -> (proven, discarded)

The test file is written into the workspace only for the two runs and removed afterwards, and
the patched files are put back to their base text whatever happens, so the workspace is left as
it was found. A case whose code is unfit (not one function, skip/xfail, try/except) is discarded
before anything runs; a file the patched code cannot even import is discarded as a whole.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from selfheal.agent.newtests.cases import ProvenTest, TestCase, TestFile, check_case_code
from selfheal.agent.run.testrun import TestReport, TestRunner
from selfheal.sandbox import Session
from selfheal.sandbox.exceptions import WorkspaceTrap

PROOF_TIMEOUT = 120.0
_SAFE = re.compile(r"[^A-Za-z0-9_]+")


def new_test_path(function: str, near_tests: Iterable[str], existing: Iterable[str]) -> str:
    """Where the tests for `function` go: beside the first failing test's file (or in `tests/`),
    named `test_selfheal_<function>.py`, with a number when that name is taken."""
    folder = next((posixpath.dirname(t.split("::", 1)[0]) for t in near_tests), "") or "tests"
    stem = _SAFE.sub("_", function.rsplit(".", 1)[-1]).strip("_").lower() or "code"
    taken = set(existing)
    name = f"test_selfheal_{stem}.py"
    number = 2
    while posixpath.join(folder, name) in taken:
        name = f"test_selfheal_{stem}_{number}.py"
        number += 1
    return posixpath.join(folder, name)


class TestProver:
    __test__ = False

    def __init__(
        self, session: Session, runner: TestRunner, base_text: Callable[[str], str], python: str
    ) -> None:
        self.session = session
        self.runner = runner
        self.base_text = base_text
        self.python = python

    def prove(
        self, file: TestFile, changes: dict[str, str], alternatives: Sequence[Mapping[str, str]] = ()
    ) -> tuple[list[ProvenTest], list[tuple[TestCase, str]]]:
        """Each case on the base and on the patch; with `alternatives` (the other fixes the tests
        allow, path -> text each), also on each of them, to tell which cases assert what only
        some fixes give."""
        discarded: list[tuple[TestCase, str]] = []
        cases: list[TestCase] = []
        seen: set[str] = set()
        for case in file.cases:
            problem = check_case_code(case)
            if problem is None and case.name in seen:
                problem = f"{case.name}: a second test with the same name"
            if problem:
                discarded.append((case, problem))
                continue
            seen.add(case.name)
            cases.append(case)
        if not cases:
            return [], discarded
        file = replace(file, cases=tuple(cases))
        try:
            self.session.write_file(file.path, file.render())
            try:
                on_base = self._run(file.path)
                try:
                    for path, text in changes.items():
                        self.session.write_file(path, text)
                    on_patch = self._run(file.path)
                finally:
                    for path in changes:
                        self.session.write_file(path, self.base_text(path), force=True)
                on_alternatives = [self._run_on(file.path, other) for other in alternatives]
            finally:
                self._remove(file.path)
        except WorkspaceTrap as exc:  # the tests planted something where the proof writes
            return [], [*discarded, *((case, f"not proven: {exc}") for case in cases)]
        if not on_patch.outcomes:
            reason = _one_line(on_patch.message) or f"the test file could not run ({on_patch.status})"
            return [], [
                *discarded,
                *((case, f"does not run on the patched code: {reason}") for case in cases),
            ]
        proven = []
        for case in cases:
            nodeid = f"{file.path}::{case.name}"
            base, patch = on_base.outcomes.get(nodeid), on_patch.outcomes.get(nodeid)
            if patch is None:
                discarded.append((case, "pytest did not report it on the patched code"))
                continue
            fails_on_base = base is None or base.failing  # a file that cannot import fails
            proven.append(
                ProvenTest(
                    case=case,
                    path=file.path,
                    fails_on_base=bool(fails_on_base),
                    passes_on_patch=patch.outcome == "passed",
                    base_message=_one_line(base.message if base else _first_error(on_base)),
                    patch_message="" if patch.outcome == "passed" else _one_line(patch.message),
                    fails_on_alternatives=tuple(
                        i for i, run in enumerate(on_alternatives) if _fails(run, nodeid)
                    ),
                )
            )
        return proven, discarded

    def _run_on(self, path: str, changes: Mapping[str, str]) -> TestReport:
        try:
            for changed, text in changes.items():
                self.session.write_file(changed, text)
            return self._run(path)
        finally:
            for changed in changes:
                self.session.write_file(changed, self.base_text(changed), force=True)

    def _run(self, path: str) -> TestReport:
        report, _ = self.runner.run([path], timeout=PROOF_TIMEOUT)
        return report

    def _remove(self, path: str) -> None:
        remove_file(self.session, self.python, path)


def remove_file(session: Session, python: str, relpath: str) -> None:
    """Delete a file of the workspace from inside the sandbox (a Session has no delete; inside a
    container the host may not own the file)."""
    session.run(
        [python, "-c", "import os, sys; os.remove(sys.argv[1])", str(session.root / relpath)], timeout=30
    )


def _fails(run: TestReport, nodeid: str) -> bool:
    """Did the test not pass in `run` (a file that could not even be collected fails all)?"""
    outcome = run.outcomes.get(nodeid)
    return outcome is None or outcome.outcome != "passed"


def _first_error(report: TestReport) -> str:
    return report.message or report.status


def _one_line(text: str, limit: int = 200) -> str:
    for line in (text or "").strip().splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
