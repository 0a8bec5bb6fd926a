"""Build each real bug as a benchmark task and verify that it reproduces.

A task is `tasks/<id>/` in the cache, in the layout of `evaluation/tasks/`: `repo/` is the buggy
release's sdist with the fixed release's visible test files over it (never the fixed sources),
`hidden/` the fixed release's test files at their own paths, `solution.diff` the release's change
of the source files the fix touched, `task.toml` the metadata and the test command.

Verified with pytest: the failing tests fail on the buggy sources and pass on the fixed ones; the
other visible tests pass on both, and one that does not is deselected with the reason. A task
whose failing tests do not reproduce is excluded, with why.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import shlex
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from evaluation.bench.hidden import is_test_module
from evaluation.bench.reference import function_trees
from evaluation.realbugs.manifest import Bug, Deselected
from evaluation.realbugs.pytest_run import PytestRun, covers, run_pytest
from evaluation.realbugs.sdist import SdistCache, SdistUnavailable

BUILT, REPRODUCED, EXCLUDED, UNAVAILABLE = "built", "reproduced", "excluded", "unavailable"
MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([A-Za-z_][\w.]*)'")


class MissingDependency(Exception):
    """The tests import a module this interpreter lacks: the machine's doing, not the bug's."""


# a task is committed with `git add -A`: a project's .gitignore would leave out sdist files that
# its build generated (a `_version.py`, compiled translations), so the heal would lack them
SKIPPED_IN_COPY = shutil.ignore_patterns(
    "*.egg-info", "__pycache__", "*.pyc", ".pytest_cache", ".tox", ".gitignore"
)
# a change of how tasks are built rebuilds every task (5: a missing test dependency makes a task
# unavailable, where 4 cached it as excluded; 6: the hidden tests run twice on the fixed release,
# and a test flaky there is left out whole)
BUILDER_VERSION = 6
# runs of the hidden tests on the fixed release: a test that fails in one and passes in the other
# is flaky here, and cannot tell a right patch from a wrong one
REFERENCE_RUNS = 2
STAMP = "build.json"
BOTH_FAIL = (
    "fails with the buggy sources and with the fix's sources alike here "
    "(needs another change of the release, or what this environment lacks)"
)


@dataclass(frozen=True)
class Outcome:
    id: str
    state: str  # reproduced | excluded | unavailable
    why: str = ""
    failing: tuple[str, ...] = ()
    deselected: tuple[Deselected, ...] = ()
    visible_tests: int = 0
    changed_lines: int = 0
    functions: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        if self.state != REPRODUCED:
            built = f"{BUILT}, " if self.state == EXCLUDED else ""
            return f"{self.id}: {built}{self.state}: {self.why}"
        extra = f", {len(self.deselected)} deselected" if self.deselected else ""
        return (
            f"{self.id}: built, reproduced: {len(self.failing)} failing of {self.visible_tests} visible "
            f"tests{extra}; fix {self.changed_lines} line(s) in {', '.join(self.functions) or '-'}"
        )


def bug_digest(bug: Bug) -> str:
    recipe = {"builder": BUILDER_VERSION, **asdict(bug)}
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:12]


def build_bug(bug: Bug, cache: SdistCache, tasks_dir: Path, rebuild: bool = False) -> Outcome:
    """The task of `bug` under `tasks_dir/<id>`, built (or reused when the manifest entry did not
    change since) and verified."""
    target = tasks_dir / bug.id
    stamp = target / STAMP
    if not rebuild and stamp.is_file():
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
        if recorded.get("digest") == bug_digest(bug):
            return _outcome_from(recorded["outcome"])
    try:
        buggy = cache.tree(bug.project, bug.buggy)
        fixed = cache.tree(bug.project, bug.fixed)
    except SdistUnavailable as exc:
        return Outcome(bug.id, UNAVAILABLE, str(exc))
    shutil.rmtree(target, ignore_errors=True)
    try:
        outcome = _build(bug, buggy, fixed, target)
    except MissingDependency as exc:
        # unavailable, and no stamp: installing the module makes the next build reproduce it
        shutil.rmtree(target, ignore_errors=True)
        return Outcome(bug.id, UNAVAILABLE, str(exc))
    if outcome.state == EXCLUDED and not target.is_dir():
        target.mkdir(parents=True)
    stamp.write_text(
        json.dumps({"digest": bug_digest(bug), "outcome": asdict(outcome)}, indent=2), encoding="utf-8"
    )
    return outcome


def _outcome_from(data: dict) -> Outcome:
    return Outcome(
        id=data["id"], state=data["state"], why=data["why"], failing=tuple(data["failing"]),
        deselected=tuple(Deselected(**d) for d in data["deselected"]),
        visible_tests=data["visible_tests"], changed_lines=data["changed_lines"],
        functions=tuple(data["functions"]),
    )  # fmt: skip


def unreliable(runs: list[PytestRun]) -> set[str]:
    """The hidden tests that cannot judge a patch: those the fixed release failed in any of its
    runs, and every parametrization of a test that failed in one run and passed in another. Which
    parametrizations of a flaky test fail changes from run to run (a pager's output read back
    under load), so the ones that happened to pass here would fail a right patch later."""
    failed = set().union(*(run.failed() for run in runs))
    flaky = failed - set.intersection(*(run.failed() for run in runs))
    flaky_tests = {_test_of(test) for test in flaky}
    return failed | {test for run in runs for test in run.outcomes if _test_of(test) in flaky_tests}


def _test_of(node_id: str) -> str:
    """The test a parametrized node id belongs to: `t.py::test_a[x-1]` -> `t.py::test_a`."""
    return node_id.split("[", 1)[0]


def _build(bug: Bug, buggy: Path, fixed: Path, target: Path) -> Outcome:
    missing = [f"{f} (buggy {bug.buggy})" for f in bug.source_files if not (buggy / f).is_file()]
    missing += [f"{f} (fixed {bug.fixed})" for f in (*bug.source_files, *bug.test_files, *bug.hidden_files)
                if not (fixed / f).is_file()]  # fmt: skip
    if missing:
        return Outcome(bug.id, EXCLUDED, "not in the sdist: " + ", ".join(missing))
    diff = solution_diff(bug, buggy, fixed)
    if not diff:
        return Outcome(bug.id, EXCLUDED, "the source files are the same in both releases")
    with tempfile.TemporaryDirectory(prefix=f"realbugs-{bug.id}-") as tmp:
        base = _task_repo(bug, buggy, fixed, Path(tmp) / "base")
        patched = _task_repo(bug, buggy, fixed, Path(tmp) / "fixed")
        for rel in bug.source_files:
            shutil.copy(fixed / rel, patched / rel)
        listed = [*bug.pytest_args, *(f"--deselect={d.test}" for d in bug.deselect)]
        before = run_pytest(base, [*bug.test_files, *listed])
        after = run_pytest(patched, [*bug.test_files, *listed])
        problem = _not_reproduced(bug, before, after, (buggy, fixed))
        if problem:
            return Outcome(bug.id, EXCLUDED, problem)
        fixed_by_release = before.failed() & after.passed()
        failing = tuple(sorted(t for t in fixed_by_release if any(covers(f, t) for f in bug.failing)))
        deselected = [*bug.deselect]
        # a release ships several changes; the tests of the others are no part of this task
        deselected += [Deselected(t, "tests another change of the same release")
                       for t in sorted(fixed_by_release) if t not in failing]  # fmt: skip
        deselected += [Deselected(t, BOTH_FAIL) for t in sorted(before.failed() & after.failed())]
        deselected += [Deselected(t, "fails with the fixed sources only (needs more of the release)")
                       for t in sorted(after.failed() - before.failed())]  # fmt: skip
        hidden_base = _task_repo(bug, buggy, fixed, Path(tmp) / "hidden-base", tests_from=fixed,
                                 tests=bug.hidden_files)  # fmt: skip
        hidden_fixed = _task_repo(bug, buggy, fixed, Path(tmp) / "hidden-fixed", tests_from=fixed,
                                  tests=bug.hidden_files)  # fmt: skip
        for rel in bug.source_files:
            shutil.copy(fixed / rel, hidden_fixed / rel)
        hidden_tests = [f for f in bug.hidden_files if is_test_module(Path(f).name)]
        others = [f"--deselect={d.test}" for d in deselected if d not in bug.deselect]
        reference_runs = [
            run_pytest(hidden_fixed, [*hidden_tests, *listed, *others]) for _ in range(REFERENCE_RUNS)
        ]
        hidden_after = reference_runs[0]
        hidden_args = [*listed, *others, *(f"--deselect={t}" for t in sorted(unreliable(reference_runs)))]
        hidden_before = run_pytest(hidden_base, [*hidden_tests, *hidden_args])
        # the hidden files' tests of the release's other changes fail on the buggy sources too
        other_changes = sorted(
            t
            for t in hidden_before.failed() & set.intersection(*(run.passed() for run in reference_runs))
            if not any(covers(f, t) for f in (*bug.failing, *bug.hidden_failing))
        )
        hidden_args += [f"--deselect={t}" for t in other_changes]
        if not any(covers(f, t) for f in bug.failing for t in hidden_before.failed()):
            return Outcome(bug.id, EXCLUDED, "no hidden test of the fix fails on the buggy release")
        if hidden_after.returncode not in (0, 1) or not hidden_after.passed():
            return Outcome(bug.id, EXCLUDED, f"the hidden tests do not run on the fixed release: "
                           f"{_tail(hidden_after)}")  # fmt: skip
        functions = _fixed_functions(bug, buggy, fixed)
        ignore = list(bug.ignore_functions)
        if bug.fix_functions:  # the release changed more: only these are the fix
            ignore += [
                name.split("::", 1)[1]
                for name in functions
                if name.split("::", 1)[1] not in bug.fix_functions
            ]
            functions = tuple(name for name in functions if name.split("::", 1)[1] in bug.fix_functions)
        changed = sum(1 for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        _write_task(bug, target, base, fixed, diff, failing, deselected, hidden_args, changed, ignore)
        visible = len(before.outcomes) - len([d for d in deselected if d.test in before.outcomes])
        return Outcome(bug.id, REPRODUCED, "", failing, tuple(deselected), visible, changed, functions)


def _task_repo(
    bug: Bug, buggy: Path, fixed: Path, into: Path, tests_from: Path | None = None,
    tests: tuple[str, ...] | None = None,
) -> Path:  # fmt: skip
    """The buggy release with the fixed release's test files over it."""
    shutil.copytree(buggy, into, ignore=SKIPPED_IN_COPY)
    for rel in bug.test_files if tests is None else tests:
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy((tests_from or fixed) / rel, into / rel)
    return into


def _not_reproduced(bug: Bug, before: PytestRun, after: PytestRun, trees: tuple[Path, ...]) -> str:
    for run, release in ((before, bug.buggy), (after, bug.fixed)):
        if run.timed_out:
            return f"the visible tests timed out on {release}"
        if run.returncode not in (0, 1) or not run.outcomes:
            _raise_if_missing_dependency(run, trees)
            return f"the visible tests do not run on {release} (exit {run.returncode}): {_tail(run)}"
    for listed in bug.failing:
        fails = [t for t in before.failed() if covers(listed, t)]
        passes = [t for t in after.passed() if covers(listed, t)]
        if not fails:
            return f"{listed} does not fail on the buggy release {bug.buggy}"
        if not all(t in passes for t in fails):
            return f"{listed} does not pass with the fixed sources of {bug.fixed}"
    return ""


def _raise_if_missing_dependency(run: PytestRun, trees: tuple[Path, ...]) -> None:
    """A module the tests import that neither release nor this interpreter has: a test dependency
    to install (one of the releases' own modules missing is the releases' problem)."""
    roots = [root for tree in trees for root in (tree, tree / "src")]
    for name in MISSING_MODULE.findall(run.output):
        top = name.split(".")[0]
        if any((root / top).exists() or (root / f"{top}.py").exists() for root in roots):
            continue
        raise MissingDependency(
            f"the tests import {top}, which {sys.executable} does not have: "
            "pip install -e '.[bench]' installs the real-bug suite's test dependencies"
        )


def _tail(run: PytestRun) -> str:
    lines = [line for line in run.output.strip().splitlines() if line.strip()]
    return " | ".join(lines[-3:])[:400]


def solution_diff(bug: Bug, buggy: Path, fixed: Path) -> str:
    chunks = []
    for rel in bug.source_files:
        old = (buggy / rel).read_text(encoding="utf-8").splitlines(keepends=True)
        new = (fixed / rel).read_text(encoding="utf-8").splitlines(keepends=True)
        chunks.extend(_ended(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}")))
    return "".join(chunks)


def _ended(lines):
    for line in lines:
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def _fixed_functions(bug: Bug, buggy: Path, fixed: Path) -> tuple[str, ...]:
    names = []
    for rel in bug.source_files:
        before = function_trees((buggy / rel).read_text(encoding="utf-8")) or {}
        after = function_trees((fixed / rel).read_text(encoding="utf-8")) or {}
        for name in sorted(before.keys() | after.keys()):
            if before.get(name) != after.get(name) and name not in bug.ignore_functions:
                names.append(f"{rel}::{name}")
    return tuple(names)


def test_command(bug: Bug, deselected: list[Deselected]) -> str:
    words = ["pytest", "-q", *bug.pytest_args, *bug.test_files, *(f"--deselect={d.test}" for d in deselected)]
    return " ".join(shlex.quote(w) for w in words)


def _difficulty(changed: int) -> str:
    return "easy" if changed <= 4 else "medium" if changed <= 20 else "hard"


def _write_task(
    bug: Bug, target: Path, repo: Path, fixed: Path, diff: str, failing: tuple[str, ...],
    deselected: list[Deselected], hidden_args: list[str], changed: int, ignore: list[str],
) -> None:  # fmt: skip
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    shutil.copytree(repo, staging / "repo", ignore=SKIPPED_IN_COPY)
    for rel in bug.hidden_files:
        (staging / "hidden" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(fixed / rel, staging / "hidden" / rel)
    (staging / "solution.diff").write_text(diff, encoding="utf-8")
    meta = {
        "id": bug.id,
        "category": bug.project,
        "difficulty": _difficulty(changed),
        "summary": f"{bug.project} {bug.buggy} (fixed in {bug.fixed}); {bug.domain}",
        "bug": bug.bug,
        "kind": list(bug.kind),
        "test_command": test_command(bug, deselected),
        "visible_failing": list(failing),
        "hidden_layout": "overlay",
        "hidden_args": hidden_args,
        "reference_mode": "functions",
        "reference_ignore": ignore,
        "project": bug.project,
        "buggy": bug.buggy,
        "fixed": bug.fixed,
        "domain": bug.domain,
        "deselected": [asdict(d) for d in deselected],
    }
    (staging / "task.toml").write_text(_toml(meta), encoding="utf-8")
    staging.rename(target)


def _toml(meta: dict) -> str:
    lines = []
    for key, value in meta.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            continue
        lines.append(f"{key} = {json.dumps(value)}")
    for key, value in meta.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            for item in value:
                lines.append(f"\n[[{key}]]")
                lines.extend(f"{k} = {json.dumps(v)}" for k, v in item.items())
    return "\n".join(lines) + "\n"
