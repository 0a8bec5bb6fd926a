"""The proof run for generated tests: each one on the base code, then on the patched code.

    TestProver(runner, tree, exempt).prove(test_file, changes) -> Proof

Each run decides something, so each starts from a tree made afresh (run/freshtree.py): the base
and the test file, then the base, the patched files and the test file, nothing an earlier run
left. What a run adds, changes or removes there counts: in the run on the base code it is the
tests' doing (or the base code's), and the file's tests are discarded; what the run on the patched
code changes beyond that is the patch's doing, and refuses the patch (verdict rule 9). Afterwards
the workspace is the base again. A case whose code is unfit (not one function, skip/xfail,
try/except) is discarded before anything runs; a file the patched code cannot even import is
discarded as a whole.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from selfheal.agent.newtests.cases import ProvenTest, TestCase, TestFile, check_case_code
from selfheal.agent.run.freshtree import FreshTree, tree_changes
from selfheal.agent.run.testrun import TestReport, TestRunner
from selfheal.agent.run.timelimits import load_factor, sibling_probe
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


@dataclass(frozen=True)
class Proof:
    """One test file's proof: its cases as they did on the base and the patched code, those
    discarded and why, and what the run on the patched code changed in the tree beyond what the
    run on the base code did (the patch's doing: the verdict refuses it)."""

    proven: list[ProvenTest] = field(default_factory=list)
    discarded: list[tuple[TestCase, str]] = field(default_factory=list)
    patch_wrote: tuple[str, ...] = ()


class TestProver:
    __test__ = False

    def __init__(self, runner: TestRunner, tree: FreshTree, exempt: Iterable[str] = ()) -> None:
        """`tree`: the tree each run starts from; `exempt`: files the suite's own baseline run
        writes, not anyone's doing."""
        self.runner = runner
        self.tree = tree
        self.exempt = frozenset(exempt)

    def prove(
        self, file: TestFile, changes: dict[str, str], alternatives: Sequence[Mapping[str, str]] = ()
    ) -> Proof:
        """The file's cases on the base and on the patch; with `alternatives` (the other fixes the
        tests allow, path -> text each), also on each of them, each on a tree made afresh, to tell
        which cases assert what only some fixes give."""
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
            return Proof([], discarded)
        file = replace(file, cases=tuple(cases))
        try:
            on_base, base_wrote, on_patch, patch_wrote = self._fresh_runs(file, changes)
            on_base = self._recheck_cut_short(file, on_base, on_patch)
            on_alternatives = [self._run_on(file, other) for other in alternatives]
        except WorkspaceTrap as exc:  # the tests planted something where the proof writes
            return Proof([], [*discarded, *((case, f"not proven: {exc}") for case in cases)])
        beyond = tuple(c for c in patch_wrote if c not in base_wrote)
        if beyond:
            why = f"not proven: the patched code changed files outside the patch: {', '.join(beyond[:5])}"
            return Proof([], [*discarded, *((case, why) for case in cases)], beyond)
        if base_wrote:
            why = f"not proven: its run changed files outside the test: {', '.join(base_wrote[:5])}"
            return Proof([], [*discarded, *((case, why) for case in cases)])
        if not on_patch.outcomes:
            reason = _one_line(on_patch.message) or f"the test file could not run ({on_patch.status})"
            return Proof([], [
                *discarded,
                *((case, f"does not run on the patched code: {reason}") for case in cases),
            ])  # fmt: skip
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
        return Proof(proven, discarded)

    def _run_on(
        self, file: TestFile, changes: Mapping[str, str], tests: list[str] | None = None
    ) -> TestReport:
        """The file (or only `tests` of it) on `changes` (another fix the tests allow, or none:
        the base), on a tree made afresh; what that run changes in the tree is not the shipped
        patch's doing and decides nothing about it."""
        tree = self.tree
        settled = False
        try:
            tree.prepare({file.path: file.render(), **changes})
            report = self._run(tests or [file.path])
            tree.settle()
            settled = True
            return report
        finally:
            if not settled:
                tree.restore()

    def _fresh_runs(
        self, file: TestFile, changes: dict[str, str]
    ) -> tuple[TestReport, tuple[str, ...], TestReport, tuple[str, ...]]:
        """The two runs, each on a tree made afresh, and what each changed in it; the base again
        afterwards."""
        tree, text = self.tree, file.render()
        settled = False
        try:
            fresh = tree.prepare({file.path: text})
            on_base = self._run([file.path], siblings=True)
            after, patched = tree.advance({file.path: text, **changes})
            base_wrote = tree_changes(fresh.expected, after, self.exempt)
            on_patch = self._run([file.path])
            after, settled = tree.settle(), True
            patch_wrote = tree_changes(patched.expected, after, self.exempt)
        finally:
            if not settled:
                tree.restore()
        return on_base, base_wrote, on_patch, patch_wrote

    def _run(self, tests: list[str], *, siblings: bool = False) -> TestReport:
        """The file (or some of its cases), each case under the baseline's hang probe, on the base
        and on the patch alike: a new test that loops on the base (the bug it catches may be the
        loop) costs the probe, not the user's whole per-test limit. With `siblings` (the base's
        run), once one case hung the file's later ones get the sibling probe: they test the same
        function; and where tests already hung at baseline (the bug is a hang) the first one gets
        it too. A case cut short so is checked again (`_recheck_cut_short`) before a fail-before
        is claimed from it."""
        limits = self.runner.limits
        probe = limits.probe if limits else None
        sibling = sibling_probe(load_factor()) if siblings and limits else None
        if sibling and limits and limits.hung and probe:
            probe = min(probe, sibling)
        report, _ = self.runner.run(
            tests, timeout=PROOF_TIMEOUT, test_timeout=probe, sibling_probe=sibling, sibling_scope="file"
        )
        return report

    def _recheck_cut_short(self, file: TestFile, on_base: TestReport, on_patch: TestReport) -> TestReport:
        """A case the base's run stopped early (after another case hung, or because the bug is a
        hang) counts as failing on the base only when the patch runs it in a fifth of that time:
        otherwise it may just be slow, and a fail-before it never had would be claimed. Those are
        run again on the base, alone, under the probe."""
        probe = self.runner.limits.probe if self.runner.limits else None
        doubtful = []
        for nodeid, outcome in on_base.outcomes.items():
            cut = _cut_at(outcome.message)
            patched = on_patch.outcomes.get(nodeid)
            if cut is None or probe is None or cut >= probe or patched is None:
                continue
            if patched.duration * 5 >= cut:
                doubtful.append(nodeid)
        if not doubtful:
            return on_base
        again = self._run_on(file, {}, doubtful)
        return replace(
            on_base,
            outcomes={**on_base.outcomes, **{t: again.outcomes[t] for t in doubtful if t in again.outcomes}},
        )


def remove_file(session: Session, python: str, relpath: str) -> None:
    """Delete a file of the workspace from inside the sandbox (a Session has no delete; inside a
    container the host may not own the file)."""
    session.run(
        [python, "-c", "import os, sys; os.remove(sys.argv[1])", str(session.root / relpath)], timeout=30
    )


_CUT = re.compile(r"test ran longer than ([\d.]+)s \(selfheal per-test timeout\)")


def _cut_at(message: str) -> float | None:
    """The limit a test was stopped at, from its failure message; None when it was not stopped."""
    found = _CUT.search(message or "")
    return float(found.group(1)) if found else None


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
