"""Validate the benchmark tasks under evaluation/tasks/.

For every task (a folder holding task.toml), in a temporary copy:

1. the visible tests at base: exactly the `visible_failing` node ids fail, every other test passes,
   and the suite holds 4-15 tests; run on their own, the `visible_failing` tests fail as well;
2. with solution.diff applied (`patch -p1`): every visible test and every hidden test passes;
3. the hidden tests at base: at least one fails;
4. task.toml has every key, a known category, difficulty and kind;
5. the repo holds no file named like a hidden test, no copy of the solution, no conftest.py, no
   caches, and no marker that gives the bug away (BUG/FIXME comments, a line the fix adds written
   out as a comment).

Hidden tests run the way the benchmark runs them: copied into `_hidden/` at the repo root and run
with `python -m pytest _hidden -p no:cacheprovider`, cwd = repo root. The visible suite runs as
`python -m pytest -p no:cacheprovider` (the repo's testpaths) with cwd = repo root.

A task also fails when its tests take more than 2 s (pytest's start-up not counted) or hang. A
task of kind `hangs` is a bug that makes tests hang: its tests run with a per-test limit of
2 s (an alarm), a test stopped by it counts as failing, and only the runs with the fix applied
must be fast.
Also checks subsets.toml: every id it names exists, `full` lists every task, and a subset named
after a kind or a difficulty lists exactly the tasks labelled so.

Needs only the standard library, pytest and `patch`. Usage:

    python evaluation/tasks/check_tasks.py [TASK_ID ...] [--jobs N] [-v]

Exit status 0 when every check passes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

TASKS = Path(__file__).resolve().parent
sys.path.insert(0, str(TASKS.parents[1]))  # the clone's root: task.toml's keys are the runner's
from evaluation.bench.tasks import REQUIRED as REQUIRED_KEYS  # noqa: E402

CATEGORIES = {
    "interval-merging",
    "data-normalization",
    "log-parsing",
    "data-transformation",
    "boundary-conditions",
    "text-processing",
    "recursion",
    "graph-search",
    "numeric",
    "stateful-classes",
    "date-time",
    "parsing",
    "caching",
}
DIFFICULTIES = {"easy", "medium", "hard"}
KINDS = {"single-edit", "multi-file", "far-from-assertion", "two-edits", "no-single-mutation", "hangs"}
MIN_TESTS, MAX_TESTS = 4, 15
SLOW_SECONDS = 2.0
TIMEOUT = 60  # seconds for one pytest run; a hang is reported, never waited out
HANG_LIMIT = 2.0  # seconds per test in a `hangs` task: a test still running then has hung
MARKERS = re.compile(r"#.*\b(BUG|FIXME|XXX|HACK|WRONG)\b|\bbuggy\b|\bsolution\b", re.IGNORECASE)
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")

# A pytest plugin that writes {nodeid: outcome} to $TASKCHECK_OUT (outcome is passed, failed,
# skipped or error: a test module that cannot be collected) with the seconds the tests took
# (setup, call and teardown; pytest's own start-up is left out).
PLUGIN = """
import json
import os
import signal

import pytest

_RESULTS = {}
_SECONDS = [0.0]


class TestHung(BaseException):  # not an Exception: a retry loop's `except Exception` cannot eat it
    pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = float(os.environ.get("TASKCHECK_TEST_LIMIT", "0"))
    if not limit:
        yield
        return

    def on_alarm(signum, frame):
        raise TestHung(f"still running after {limit}s")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit, 0.5)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def pytest_runtest_logreport(report):
    _SECONDS[0] += report.duration
    if report.failed:
        _RESULTS[report.nodeid] = "failed"
    elif report.skipped:
        _RESULTS.setdefault(report.nodeid, "skipped")
    elif report.when == "call":
        _RESULTS.setdefault(report.nodeid, "passed")


def pytest_collectreport(report):
    if report.failed:
        _RESULTS[report.nodeid or "<collection>"] = "error"


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["TASKCHECK_OUT"], "w") as handle:
        json.dump({"outcomes": _RESULTS, "seconds": _SECONDS[0]}, handle)
"""


@dataclass
class Run:
    outcomes: dict[str, str]
    seconds: float  # the tests' own time, without pytest's start-up
    exit_code: int
    output: str

    def failing(self) -> set[str]:
        return {node for node, outcome in self.outcomes.items() if outcome != "passed"}


@dataclass
class Report:
    task: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def run_pytest(repo: Path, args: list[str], plugin_dir: Path, test_limit: float = 0.0) -> Run:
    out = plugin_dir / f"result-{os.getpid()}-{time.monotonic_ns()}.json"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.update(
        PYTHONPATH=str(plugin_dir),
        PYTHONDONTWRITEBYTECODE="1",
        TASKCHECK_OUT=str(out),
        TASKCHECK_TEST_LIMIT=f"{test_limit:g}",
    )
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "taskcheck_plugin"]
    command += args
    try:
        proc = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        out.unlink(missing_ok=True)
        return Run({"<timeout>": "error"}, float(TIMEOUT), -1, f"pytest timed out after {TIMEOUT}s")
    result = json.loads(out.read_text()) if out.exists() else {"outcomes": {}, "seconds": 0.0}
    out.unlink(missing_ok=True)
    return Run(result["outcomes"], result["seconds"], proc.returncode, proc.stdout + proc.stderr)


def apply_patch(repo: Path, diff: Path) -> str | None:
    proc = subprocess.run(
        ["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-d", str(repo), "-i", str(diff)],
        capture_output=True,
        text=True,
    )
    return None if proc.returncode == 0 else proc.stdout + proc.stderr


def added_lines(diff_text: str) -> list[str]:
    return [
        line[1:].strip()
        for line in diff_text.splitlines()
        if line.startswith("+") and not line.startswith("+++") and line[1:].strip()
    ]


def copy_hidden(task_dir: Path, repo: Path) -> None:
    target = repo / "_hidden"
    target.mkdir()
    for path in sorted((task_dir / "hidden").glob("*.py")):
        shutil.copy(path, target / path.name)


def check_meta(task_dir: Path, report: Report) -> dict | None:
    try:
        meta = tomllib.loads((task_dir / "task.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        report.problems.append(f"task.toml: {exc}")
        return None
    for key, kind in REQUIRED_KEYS.items():
        if key not in meta:
            report.problems.append(f"task.toml: missing {key}")
        elif not isinstance(meta[key], kind) or not meta[key]:
            report.problems.append(f"task.toml: {key} must be a non-empty {kind.__name__}")
    if report.problems:
        return None
    if meta["id"] != task_dir.name:
        report.problems.append(f"task.toml: id {meta['id']!r} is not the folder name")
    if meta["category"] not in CATEGORIES:
        report.problems.append(f"task.toml: unknown category {meta['category']!r}")
    if meta["difficulty"] not in DIFFICULTIES:
        report.problems.append(f"task.toml: unknown difficulty {meta['difficulty']!r}")
    unknown = set(meta["kind"]) - KINDS
    if unknown:
        report.problems.append(f"task.toml: unknown kind {sorted(unknown)}")
    if "single-edit" in meta["kind"] and {"two-edits", "no-single-mutation"} & set(meta["kind"]):
        report.problems.append("task.toml: single-edit contradicts two-edits/no-single-mutation")
    return meta


def check_layout(task_dir: Path, report: Report) -> None:
    repo = task_dir / "repo"
    for needed in (repo / "pyproject.toml", repo / "tests", task_dir / "solution.diff"):
        if not needed.exists():
            report.problems.append(f"missing {needed.relative_to(task_dir)}")
    hidden = sorted((task_dir / "hidden").glob("test*.py"))
    if not hidden:
        report.problems.append("hidden/ holds no test_*.py file")
    if report.problems:
        return
    try:
        pyproject = tomllib.loads((repo / "pyproject.toml").read_text())
        if pyproject["tool"]["pytest"]["ini_options"]["testpaths"] != ["tests"]:
            report.problems.append('pyproject.toml: testpaths must be ["tests"]')
        pyproject["project"]["name"], pyproject["project"]["version"]
    except (KeyError, tomllib.TOMLDecodeError) as exc:
        report.problems.append(f"pyproject.toml: {exc!r}")

    files = [path for path in repo.rglob("*") if path.is_file()]
    names = {path.name for path in files}
    for path in hidden:
        if path.name in names:
            report.problems.append(f"repo holds a file named like hidden test {path.name}")
    for path in files:
        rel = path.relative_to(repo).as_posix()
        if path.name == "conftest.py":
            report.problems.append(f"repo holds {rel}")
        if "__pycache__" in rel or ".pytest_cache" in rel or path.suffix == ".pyc":
            report.problems.append(f"repo holds a cache file {rel}")
        if "solution" in path.name or "hidden" in rel:
            report.problems.append(f"repo holds {rel}")
    fix_lines = {line for line in added_lines((task_dir / "solution.diff").read_text()) if len(line) > 8}
    for path in files:
        if path.suffix not in {".py", ".toml", ".md", ".txt", ".cfg"}:
            continue
        rel = path.relative_to(repo).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if MARKERS.search(line):
                report.problems.append(f"{rel}:{number}: gives the bug away: {line.strip()}")
            comment = line.partition("#")[2].strip()
            if comment and comment in fix_lines:
                report.problems.append(f"{rel}:{number}: a line of the fix written as a comment")


def check_task(task_dir: Path, plugin_dir: Path) -> Report:
    report = Report(task_dir.name)
    meta = check_meta(task_dir, report)
    check_layout(task_dir, report)
    if meta is None or report.problems:
        return report
    expected = set(meta["visible_failing"])
    hangs = "hangs" in meta["kind"]
    limit = HANG_LIMIT if hangs else 0.0

    with tempfile.TemporaryDirectory(prefix=f"task-{task_dir.name}-") as tmp:
        base = Path(tmp) / "base"
        shutil.copytree(task_dir / "repo", base, ignore=IGNORED)

        # (1) visible tests at base
        visible = run_pytest(base, [], plugin_dir, limit)
        if not visible.outcomes:
            report.problems.append(f"base: no visible test ran\n{visible.output[-2000:]}")
            return report
        count = len(visible.outcomes)
        if not MIN_TESTS <= count <= MAX_TESTS:
            report.problems.append(f"base: {count} visible tests, want {MIN_TESTS}-{MAX_TESTS}")
        failing = visible.failing()
        if failing != expected:
            report.problems.append(
                f"base: visible failures {sorted(failing)} != visible_failing {sorted(expected)}"
            )
        errors = [node for node, outcome in visible.outcomes.items() if outcome == "error"]
        if errors:
            report.problems.append(f"base: collection errors {errors}")
        if len(expected) >= count:
            report.problems.append("base: every visible test fails")
        report.notes.append(f"visible {count - len(failing)}/{count} pass at base")
        # The failing tests must fail on their own too: a repair runs them by node id.
        alone = run_pytest(base, sorted(expected), plugin_dir, limit)
        if alone.failing() != expected:
            report.problems.append(
                f"base: run on their own, the failing tests give {sorted(alone.failing())} "
                "(an order dependence between tests?)"
            )

        # (3) hidden tests at base
        hidden_base = Path(tmp) / "hidden-base"
        shutil.copytree(base, hidden_base)
        copy_hidden(task_dir, hidden_base)
        hidden = run_pytest(hidden_base, ["_hidden"], plugin_dir, limit)
        hidden_failing = hidden.failing()
        if not hidden.outcomes:
            report.problems.append(f"hidden at base: no test ran\n{hidden.output[-2000:]}")
        elif not hidden_failing:
            report.problems.append("hidden at base: every hidden test passes")
        if any(outcome == "error" for outcome in hidden.outcomes.values()):
            report.problems.append("hidden at base: collection error")
        report.notes.append(f"hidden {len(hidden_failing)}/{len(hidden.outcomes)} fail at base")

        # (2) the reference fix
        fixed = Path(tmp) / "fixed"
        shutil.copytree(task_dir / "repo", fixed, ignore=IGNORED)
        error = apply_patch(fixed, task_dir / "solution.diff")
        if error:
            report.problems.append(f"solution.diff does not apply:\n{error}")
            return report
        after = run_pytest(fixed, [], plugin_dir, limit)
        if after.failing() or after.exit_code != 0:
            report.problems.append(
                f"fixed: visible failures {sorted(after.failing())}\n{after.output[-3000:]}"
            )
        if len(after.outcomes) != count:
            report.problems.append(f"fixed: {len(after.outcomes)} visible tests ran, base ran {count}")
        copy_hidden(task_dir, fixed)
        hidden_after = run_pytest(fixed, ["_hidden"], plugin_dir, limit)
        if hidden_after.failing() or hidden_after.exit_code != 0:
            report.problems.append(
                f"fixed: hidden failures {sorted(hidden_after.failing())}\n{hidden_after.output[-3000:]}"
            )
        # a hanging task's base runs are slow by design: they wait for the limit
        runs = (after, hidden_after) if hangs else (visible, hidden, after, hidden_after)
        slowest = max(run.seconds for run in runs)
        if slowest > SLOW_SECONDS:
            report.problems.append(f"slow: a test run took {slowest:.2f}s (limit {SLOW_SECONDS}s)")
    return report


def check_subsets(tasks: list[str]) -> list[str]:
    path = TASKS / "subsets.toml"
    if not path.exists():
        return ["subsets.toml is missing"]
    problems = []
    subsets = tomllib.loads(path.read_text())
    for name, subset in subsets.items():
        ids = subset.get("tasks") if isinstance(subset, dict) else None
        if not isinstance(ids, list) or not ids:
            problems.append(f"subsets.toml: [{name}] needs a non-empty `tasks` list")
            continue
        unknown = sorted(set(ids) - set(tasks))
        if unknown:
            problems.append(f"subsets.toml: [{name}] names unknown tasks {unknown}")
        if len(set(ids)) != len(ids):
            problems.append(f"subsets.toml: [{name}] lists a task twice")
    if "full" in subsets and sorted(subsets["full"].get("tasks", [])) != sorted(tasks):
        problems.append("subsets.toml: [full] must list every task")
    # A subset named after a kind or a difficulty must list exactly the tasks labelled so.
    metas = {}
    for name in tasks:
        try:
            metas[name] = tomllib.loads((TASKS / name / "task.toml").read_text())
        except (OSError, tomllib.TOMLDecodeError):
            metas[name] = {}  # reported by the task's own checks
    for name, subset in subsets.items():
        if name in KINDS:
            labelled = sorted(t for t, meta in metas.items() if name in meta.get("kind", []))
        elif name in DIFFICULTIES:
            labelled = sorted(t for t, meta in metas.items() if meta.get("difficulty") == name)
        else:
            continue
        if isinstance(subset, dict) and sorted(subset.get("tasks", [])) != labelled:
            problems.append(f"subsets.toml: [{name}] differs from the tasks labelled {name}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", nargs="*", help="task ids (default: every task)")
    parser.add_argument("--jobs", "-j", type=int, default=1)
    parser.add_argument("--verbose", "-v", action="store_true", help="print notes of passing tasks")
    args = parser.parse_args(argv)

    every = sorted(path.parent.name for path in TASKS.glob("*/task.toml"))
    chosen = args.tasks or every
    missing = sorted(set(chosen) - set(every))
    if missing:
        print(f"unknown tasks: {missing}")
        return 2

    with tempfile.TemporaryDirectory(prefix="taskcheck-plugin-") as plugin_tmp:
        plugin_dir = Path(plugin_tmp)
        (plugin_dir / "taskcheck_plugin.py").write_text(PLUGIN)
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            reports = list(pool.map(lambda name: check_task(TASKS / name, plugin_dir), chosen))

    failed = 0
    for report in reports:
        status = "ok  " if report.ok else "FAIL"
        failed += not report.ok
        notes = "; ".join(report.notes)
        print(f"{status} {report.task}" + (f"  ({notes})" if args.verbose or not report.ok else ""))
        for problem in report.problems:
            print("     - " + problem.replace("\n", "\n       "))
    subset_problems = check_subsets(every) if not args.tasks else []
    for problem in subset_problems:
        print("FAIL " + problem)
    subsets_ok = ", subsets ok" if not args.tasks and not subset_problems else ""
    print(f"{len(reports) - failed}/{len(reports)} tasks pass{subsets_ok}")
    return 1 if failed or subset_problems else 0


if __name__ == "__main__":
    sys.exit(main())
