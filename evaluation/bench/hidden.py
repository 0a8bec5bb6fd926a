"""The reference check: the heal's patch on a fresh copy of the task, judged by the hidden tests.

The copy is the task's base with the patch's source files and the heal's new tests written over it,
nothing the heal's own runs left. The hidden tests go to `_hidden/` at the root of the copy and run
as `python -m pytest _hidden -p no:cacheprovider` from that root (as check_tasks.py validates
them), in their own process group so a patch that hangs is killed as a whole at the timeout. The
copy's tree is compared before and after the run: a file the run added, changed or removed
(outside the caches) is the patch's doing, and the patch is not reference-validated, whatever the
tests said: a patch that rewrites a test or plants a conftest.py could make them say anything.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from evaluation.bench.record import HiddenRun
from evaluation.bench.tasks import Task
from selfheal.agent.run.freshtree import SCRATCH, tree_changes

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".selfheal")
OUTPUT_TAIL = 3000
MAX_FAILING = 10


def patched_copy(task: Task, files: Mapping[str, str], into: Path) -> Path:
    """A copy of the task's repo with `files` (repo-relative path -> text) written over it."""
    shutil.copytree(task.repo, into, ignore=IGNORED)
    for rel, text in files.items():
        path = PurePosixPath(rel)
        if path.is_absolute() or ".." in path.parts:
            raise ValueError(f"the patch names a path outside the repository: {rel}")
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return into


def run_hidden(task: Task, root: Path, python: str, timeout: float) -> HiddenRun:
    junit = root.parent / f"{root.name}-hidden.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [python, "-m", "pytest", *_place_hidden(task, root), "-p", "no:cacheprovider", "-q"]
    command.append(f"--junitxml={junit}")
    if task.hidden_layout == "overlay":
        # a real project's tests import its package as its CI would: from the root or from src/
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (root, root / "src") if p.is_dir())
    before = tree_digests(root)
    process = subprocess.Popen(
        command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return HiddenRun(0, 0, (), timed_out=True, output=f"hidden tests timed out after {timeout:.0f}s")
    passed, failing = _outcomes(junit)
    if process.returncode != 0 and not failing:
        failing = [f"<pytest exit code {process.returncode}>"]  # collection error, crash
    changed = tree_changes(before, tree_digests(root))
    return HiddenRun(
        passed=passed,
        failed=len(failing),
        failing=tuple(failing[:MAX_FAILING]),
        output=output[-OUTPUT_TAIL:] if failing or changed else "",
        changed=changed[:MAX_FAILING],
    )


def tree_digests(root: Path) -> dict[str, str]:
    """Every file and link under `root` outside the caches -> a digest of it (links by where
    they point), as selfheal's own fresh tree compares a deciding run's."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SCRATCH]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            key = os.path.relpath(path, root).replace(os.sep, "/")
            if os.path.islink(path):
                found[key] = "link:" + os.readlink(path)
            elif os.path.isfile(path):
                found[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            else:
                found[key] = "special"
    return found


def _place_hidden(task: Task, root: Path) -> list[str]:
    """Puts the hidden tests into the copy; the pytest arguments that run them."""
    if task.hidden_layout != "overlay":
        hidden = root / "_hidden"
        hidden.mkdir()
        for path in task.hidden_tests:
            shutil.copy(path, hidden / path.name)
        return ["_hidden"]
    # the fixed release's test files, over the visible ones of the same path
    source = task.folder / "hidden"
    tests = []
    for path in task.hidden_tests:
        rel = path.relative_to(source)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, root / rel)
        if is_test_module(rel.name):
            tests.append(rel.as_posix())
    return [*tests, *task.hidden_args]


def is_test_module(name: str) -> bool:
    """A file pytest collects tests from by its default names (`test_*.py`, `*_test.py`), or a
    module named like `tests.py`; a conftest or a helper module is not one."""
    return name.endswith(".py") and (name.startswith("test") or name.endswith("_test.py"))


def _outcomes(junit: Path) -> tuple[int, list[str]]:
    """(tests passed, ids of tests that failed or errored) from pytest's JUnit XML."""
    try:
        tree = ET.parse(junit)
    except (OSError, ET.ParseError):
        return 0, []
    passed, failing = 0, []
    for case in tree.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        if case.find("failure") is not None or case.find("error") is not None:
            failing.append(name)
        elif case.find("skipped") is None:
            passed += 1
    return passed, failing
