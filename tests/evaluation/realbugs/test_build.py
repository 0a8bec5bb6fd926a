"""The real-bug builder and the hidden validation, offline: two releases of a small package made
here as wheel-less sdists, taken by pip from a local folder."""

from __future__ import annotations

import hashlib
import json
import sys
import tarfile
import textwrap
import tomllib
from dataclasses import asdict
from pathlib import Path

import pytest

from evaluation.bench.hidden import patched_copy, run_hidden
from evaluation.bench.reference import matches_reference_functions, task_matches_reference
from evaluation.bench.tasks import load_task
from evaluation.realbugs.build import (
    BUILDER_VERSION,
    EXCLUDED,
    REPRODUCED,
    STAMP,
    UNAVAILABLE,
    bug_digest,
    build_bug,
    unreliable,
)
from evaluation.realbugs.manifest import Manifest, parse_bug
from evaluation.realbugs.pytest_run import PytestRun
from evaluation.realbugs.sdist import SdistCache
from evaluation.realbugs.suite import build_suite, reproduced_ids

# pip prepares an sdist's metadata before it saves it; an in-tree backend needs nothing from an index
PYPROJECT = """
[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]
"""
BACKEND = """
import os


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(directory, config_settings=None):
    info = os.path.join(directory, "tinyrange-{version}.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as handle:
        handle.write("Metadata-Version: 2.1\\nName: tinyrange\\nVersion: {version}\\n")
    return "tinyrange-{version}.dist-info"
"""

BUGGY = '''
VERSION = "1.0"


def clamp(value, low, high):
    """value limited to [low, high]."""
    if value < low:
        return low
    if value >= high:
        return value
    return value


def span(values):
    return max(values) - min(values)
'''

FIXED = (
    BUGGY.replace('VERSION = "1.0"', 'VERSION = "1.1"')
    .replace("    if value >= high:\n        return value", "    if value >= high:\n        return high")
    .replace("return max(values) - min(values)", "return max(values) - min(values) if values else 0")
)

TESTS_FIXED = """
import sys

from tinyrange import clamp, span


def test_inside():
    assert clamp(5, 0, 10) == 5


def test_below():
    assert clamp(-3, 0, 10) == 0


def test_above():
    assert clamp(12, 0, 10) == 10


def test_span():
    assert span([3, 9, 4]) == 6


def test_needs_another_platform():
    assert sys.platform == "no-such-platform"
"""

TESTS_MORE = """
import pathlib

import pytest

from tinyrange import clamp

RAN_BEFORE = pathlib.Path(__file__).with_name(".ran-before")


def test_far_above():
    assert clamp(1000, 0, 10) == 10


def test_at_high():
    assert clamp(10, 0, 10) == 10


@pytest.mark.parametrize("width", [1, 2])
def test_flaky_on_the_release(width):
    # fails the first time a tree runs it, like a test that reads a pager's output under load
    if width == 1:
        first = not RAN_BEFORE.exists()
        RAN_BEFORE.touch()
        assert not first
"""

TESTS_BUGGY = TESTS_FIXED.replace("def test_above():\n    assert clamp(12, 0, 10) == 10\n\n\n", "")


def _sdist(folder: Path, version: str, source: str, tests: dict[str, str]) -> None:
    root = folder / "build" / f"tinyrange-{version}"
    files = {
        "pyproject.toml": PYPROJECT,
        "backend.py": BACKEND.format(version=version),
        "tinyrange/__init__.py": source,
        ".gitignore": "tinyrange/_generated.py\n",  # what the project's build writes into the sdist
        "tinyrange/_generated.py": "GENERATED = True\n",
        **tests,
    }
    files["PKG-INFO"] = f"Metadata-Version: 2.1\nName: tinyrange\nVersion: {version}\n"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    with tarfile.open(folder / f"tinyrange-{version}.tar.gz", "w:gz") as tar:
        tar.add(root, arcname=root.name)


@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("index")
    _sdist(folder, "1.0", BUGGY, {"tests/test_range.py": TESTS_BUGGY})
    _sdist(folder, "1.1", FIXED, {"tests/test_range.py": TESTS_FIXED, "tests/test_more.py": TESTS_MORE})
    return folder


def _bug(**changes) -> object:
    entry = {
        "id": "tinyrange-clamp", "project": "tinyrange", "buggy": "1.0", "fixed": "1.1",
        "source_files": ["tinyrange/__init__.py"], "test_files": ["tests/test_range.py"],
        "hidden_files": ["tests/test_range.py", "tests/test_more.py"],
        "failing": ["tests/test_range.py::test_above"],
        "hidden_failing": ["tests/test_more.py::test_far_above"],
        "bug": "clamp returns the value above the range",
        "domain": "numeric", "kind": ["wrong-result", "single-edit"],
        "ignore_functions": ["span"],
    }  # fmt: skip
    return parse_bug({**entry, **changes})


@pytest.fixture(scope="module")
def built(releases, tmp_path_factory):
    cache = SdistCache(tmp_path_factory.mktemp("cache"), str(releases))
    tasks = cache.root / "tasks"
    outcome = build_bug(_bug(), cache, tasks)
    return cache, tasks, outcome


def test_the_builder_reproduces_the_bug_and_lists_what_it_deselected(built):
    cache, _, outcome = built
    assert outcome.state == REPRODUCED, outcome.why
    assert outcome.failing == ("tests/test_range.py::test_above",)
    assert [(d.test, d.why.split(" (")[0]) for d in outcome.deselected] == [
        ("tests/test_range.py::test_needs_another_platform",
         "fails with the buggy sources and with the fix's sources alike here"),
    ]  # fmt: skip
    assert outcome.visible_tests == 4
    assert outcome.functions == ("tinyrange/__init__.py::clamp",)
    assert outcome.describe().startswith("tinyrange-clamp: built, reproduced: 1 failing of 4 visible tests")
    assert sorted(p.name for p in (cache.root / "sdists").iterdir()) == [
        "tinyrange-1.0.tar.gz",
        "tinyrange-1.1.tar.gz",
    ]


def test_the_task_holds_the_buggy_sources_with_the_fixed_tests(built):
    _, tasks, _ = built
    task = load_task(tasks / "tinyrange-clamp")
    repo = task.repo
    assert "return value\n    return value" in (repo / "tinyrange/__init__.py").read_text()
    assert "def test_above" in (repo / "tests/test_range.py").read_text()
    assert not (repo / "tests/test_more.py").exists()  # hidden: the heal never sees it
    # committed with `git add -A`, every file of the sdist must reach the heal
    assert (repo / "tinyrange/_generated.py").is_file() and not (repo / ".gitignore").exists()
    assert task.test_command == (
        "pytest -q tests/test_range.py --deselect=tests/test_range.py::test_needs_another_platform"
    )
    assert task.visible_failing == ("tests/test_range.py::test_above",)
    assert task.hidden_layout == "overlay" and task.reference_mode == "functions"
    assert task.category == "tinyrange"
    assert [p.relative_to(task.folder / "hidden").as_posix() for p in task.hidden_tests] == [
        "tests/test_more.py", "tests/test_range.py",
    ]  # fmt: skip
    # test_flaky_on_the_release[1] failed on the fixed release's first run and passed on its
    # second: both of its parametrizations are out, not only the one that failed
    assert task.hidden_args == (
        "--deselect=tests/test_range.py::test_needs_another_platform",
        "--deselect=tests/test_more.py::test_flaky_on_the_release[1]",
        "--deselect=tests/test_more.py::test_flaky_on_the_release[2]",
    )
    meta = tomllib.loads((task.folder / "task.toml").read_text())
    assert meta["deselected"][0]["test"] == "tests/test_range.py::test_needs_another_platform"


def test_a_test_the_release_fails_always_is_out_alone_and_a_flaky_one_whole():
    first = {"t.py::test_env[a]": "FAILED", "t.py::test_env[b]": "PASSED"}
    first |= {"t.py::test_pager[1]": "FAILED", "t.py::test_pager[2]": "PASSED"}
    second = {**first, "t.py::test_pager[1]": "PASSED"}
    runs = [PytestRun(1, first, ""), PytestRun(1, second, "")]
    assert unreliable(runs) == {"t.py::test_env[a]", "t.py::test_pager[1]", "t.py::test_pager[2]"}
    assert unreliable(runs[:1]) == {"t.py::test_env[a]", "t.py::test_pager[1]"}


REFERENCE = "    if value >= high:\n        return high"
OVERFIT = "    if value == 12:\n        return 10\n    if value >= high:\n        return value"


def _changes(task, new_clamp: str, span_fix: bool = False) -> dict[str, str]:
    text = (task.repo / "tinyrange/__init__.py").read_text()
    text = text.replace("    if value >= high:\n        return value", new_clamp)
    if span_fix:
        text = text.replace(
            "return max(values) - min(values)", "return max(values) - min(values) if values else 0"
        )
    return {"tinyrange/__init__.py": text}


def test_hidden_validation_passes_the_reference_fix_and_catches_an_overfit_patch(built, tmp_path):
    _, tasks, _ = built
    task = load_task(tasks / "tinyrange-clamp")
    good = run_hidden(task, patched_copy(task, _changes(task, REFERENCE), tmp_path / "good"), "python", 60)
    assert (good.passed, good.failed) == (6, 0) and good.ok
    overfit = run_hidden(
        task, patched_copy(task, _changes(task, OVERFIT), tmp_path / "overfit"), "python", 60
    )
    assert overfit.failing == ("tests.test_more::test_far_above",)
    base = run_hidden(task, patched_copy(task, {}, tmp_path / "base"), "python", 60)
    assert base.failing == ("tests.test_more::test_far_above", "tests.test_range::test_above") and not base.ok


def test_the_reference_comparison_is_by_function(built):
    _, tasks, _ = built
    task = load_task(tasks / "tinyrange-clamp")
    assert task_matches_reference(task, _changes(task, REFERENCE)) is True
    # the release's other change (span) is not part of the fix, but copying it is no mismatch
    assert task_matches_reference(task, _changes(task, REFERENCE, span_fix=True)) is True
    assert task_matches_reference(task, _changes(task, OVERFIT)) is False
    diff = (task.folder / "solution.diff").read_text()
    assert (
        matches_reference_functions(task.repo, diff, _changes(task, REFERENCE), ()) is False
    )  # span required


def test_a_bug_that_does_not_reproduce_is_excluded_with_why(releases, tmp_path):
    cache = SdistCache(tmp_path / "cache", str(releases))
    outcome = build_bug(_bug(id="tinyrange-inside", failing=["tests/test_range.py::test_inside"]), cache,
                        tmp_path / "tasks")  # fmt: skip
    assert outcome.state == EXCLUDED
    assert outcome.why == "tests/test_range.py::test_inside does not fail on the buggy release 1.0"
    assert outcome.describe() == f"tinyrange-inside: built, excluded: {outcome.why}"
    assert not (tmp_path / "tasks" / "tinyrange-inside" / "task.toml").exists()


def test_a_release_that_cannot_be_downloaded_is_unavailable(releases, tmp_path):
    cache = SdistCache(tmp_path / "cache", str(releases))
    outcome = build_bug(_bug(id="tinyrange-gone", fixed="9.9"), cache, tmp_path / "tasks")
    assert outcome.state == UNAVAILABLE
    assert outcome.why.startswith("tinyrange==9.9: pip download failed")


def test_tests_that_import_a_module_this_interpreter_lacks_are_unavailable_not_excluded(tmp_path):
    """A test dependency missing here says nothing about the bug: the task is counted as not
    validated (never left out of the count), and nothing is cached, so installing it is enough."""
    index = tmp_path / "index"
    needs = "import selfheal_absent_test_dependency\n\n"
    _sdist(index, "1.0", BUGGY, {"tests/test_range.py": needs + TESTS_BUGGY})
    fixed_tests = {"tests/test_range.py": needs + TESTS_FIXED, "tests/test_more.py": TESTS_MORE}
    _sdist(index, "1.1", FIXED, fixed_tests)
    cache = SdistCache(tmp_path / "cache", str(index))
    outcome = build_bug(_bug(), cache, tmp_path / "tasks")
    assert outcome.state == UNAVAILABLE
    assert outcome.why == (
        f"the tests import selfheal_absent_test_dependency, which {sys.executable} does not have: "
        "pip install -e '.[bench]' installs the real-bug suite's test dependencies"
    )
    assert not (tmp_path / "tasks" / "tinyrange-clamp").exists()


def test_an_exclusion_recorded_by_an_older_builder_is_built_again(releases, tmp_path):
    """An older builder cached a missing test dependency as an exclusion: its stamp's digest (of
    another builder version) no longer matches, so the task is built again."""
    cache = SdistCache(tmp_path / "cache", str(releases))
    assert build_bug(_bug(), cache, tmp_path / "tasks").state == REPRODUCED
    stamp = tmp_path / "tasks" / "tinyrange-clamp" / STAMP
    recorded = json.loads(stamp.read_text(encoding="utf-8"))
    assert recorded["digest"] == bug_digest(_bug())
    why = "conftest.py:7: in <module> | E   ModuleNotFoundError: No module named 'hypothesis'"
    older = {"builder": BUILDER_VERSION - 1, **asdict(_bug())}
    recorded["digest"] = hashlib.sha256(json.dumps(older, sort_keys=True).encode()).hexdigest()[:12]
    recorded["outcome"] |= {"state": EXCLUDED, "why": why}
    stamp.write_text(json.dumps(recorded), encoding="utf-8")
    assert build_bug(_bug(), cache, tmp_path / "tasks").state == REPRODUCED


def test_the_suite_writes_subsets_of_reproduced_tasks_only(releases, tmp_path):
    cache = SdistCache(tmp_path / "cache", str(releases))
    good, bad = _bug(), _bug(id="tinyrange-inside", failing=["tests/test_range.py::test_inside"])
    manifest = Manifest((good, bad), {"realbugs-smoke": ("tinyrange-clamp", "tinyrange-inside")})
    seen = []
    outcomes = build_suite(manifest, cache, manifest.bugs, jobs=1, report=seen.append)
    assert [o.state for o in outcomes] == [REPRODUCED, EXCLUDED] and len(seen) == 2
    assert reproduced_ids(cache.root / "tasks") == ["tinyrange-clamp"]
    subsets = tomllib.loads((cache.root / "tasks" / "subsets.toml").read_text())
    assert subsets == {
        "full": {"tasks": ["tinyrange-clamp"]},
        "realbugs-smoke": {"tasks": ["tinyrange-clamp"]},
    }


def test_the_command_prints_one_line_per_bug_and_a_count(releases, tmp_path, capsys):
    from evaluation.realbugs.__main__ import main

    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        textwrap.dedent("""
        [[bug]]
        id = "tinyrange-clamp"
        project = "tinyrange"
        buggy = "1.0"
        fixed = "1.1"
        source_files = ["tinyrange/__init__.py"]
        test_files = ["tests/test_range.py"]
        failing = ["tests/test_range.py::test_above"]
        bug = "clamp returns the value above the range"
        domain = "numeric"
        kind = ["wrong-result"]

        [[bug]]
        id = "tinyrange-gone"
        project = "tinyrange"
        buggy = "1.0"
        fixed = "9.9"
        source_files = ["tinyrange/__init__.py"]
        test_files = ["tests/test_range.py"]
        failing = ["tests/test_range.py::test_above"]
        bug = "a release that does not exist"
        domain = "numeric"
        kind = ["wrong-result"]
        """)
    )
    args = ["--manifest", str(manifest), "--cache", str(tmp_path / "cache"), "--find-links", str(releases)]
    assert main([*args, "--jobs", "1"]) == 1  # not every bug reproduced
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        "tinyrange-clamp: built, reproduced: 1 failing of 4 visible tests, 1 deselected"
    )
    assert lines[1].startswith("tinyrange-gone: unavailable: tinyrange==9.9: pip download failed")
    assert lines[2].startswith("1 reproduced task(s) from 1 project(s); 0 excluded, 1 unavailable; tasks in ")
