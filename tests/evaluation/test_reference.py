from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from evaluation.bench.record import TaskRun, from_report
from evaluation.bench.reference import (
    PatchError,
    matches_reference,
    parse_diff,
    reference_texts,
    same_code,
    task_matches_reference,
)
from evaluation.bench.tasks import TASKS_DIR, load_task, load_tasks
from tests.evaluation.helpers import healed, write_task

STATS = '''\
def is_server_error(status: int) -> bool:
    """5xx responses."""
    return 500 < status < 600


def count(entries):
    return len(entries)
'''
FIX = "\n".join([
    "diff --git a/pkg/stats.py b/pkg/stats.py",
    "--- a/pkg/stats.py",
    "+++ b/pkg/stats.py",
    "@@ -1,6 +1,6 @@",
    " def is_server_error(status: int) -> bool:",
    '     """5xx responses."""',
    "-    return 500 < status < 600",
    "+    return 500 <= status < 600",
    " ",
    " ",
    " def count(entries):",
    "",
])  # fmt: skip
HELPER = "def double(x):\n    return x * 2\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "stats.py").write_text(STATS)
    (tmp_path / "pkg" / "helper.py").write_text(HELPER)
    return tmp_path


def test_the_reference_fix_applied_in_memory(repo: Path):
    fixed = STATS.replace("500 < status", "500 <= status")
    assert reference_texts(repo, FIX) == {"pkg/stats.py": fixed}
    assert matches_reference(repo, FIX, {"pkg/stats.py": fixed})


def test_the_same_fix_written_otherwise_matches():
    heal = STATS.replace(
        "    return 500 < status < 600",
        "    # the 500 itself is a server error too\n    return (500 <= status  <  600)",
    ).replace("\n\n\ndef count", "\n\ndef count")
    assert matches_reference_of(heal)


def test_another_operator_does_not_match():
    assert not matches_reference_of(STATS.replace("500 < status < 600", "500 < status <= 600"))
    assert not matches_reference_of(STATS)  # the heal left the bug where it was


def test_an_extra_edit_in_another_file_does_not_match(repo: Path):
    fixed = STATS.replace("500 < status", "500 <= status")
    extra = {"pkg/stats.py": fixed, "pkg/helper.py": HELPER.replace("x * 2", "x + x")}
    assert not matches_reference(repo, FIX, extra)
    assert not matches_reference(repo, FIX, {**extra, "pkg/new.py": "X = 1\n"})
    # a file only the heal touches, with a comment only, is the same code
    assert matches_reference(repo, FIX, {"pkg/stats.py": fixed, "pkg/helper.py": "# helpers\n" + HELPER})


def test_a_fix_in_another_file_than_the_reference_does_not_match(repo: Path):
    assert not matches_reference(repo, FIX, {"pkg/helper.py": HELPER.replace("x * 2", "x * 3")})
    assert not matches_reference(repo, FIX, {})


def matches_reference_of(heal: str) -> bool:
    return same_code("pkg/stats.py", heal, STATS.replace("500 < status", "500 <= status"))


def test_files_that_are_not_python_compare_as_text():
    assert same_code("setup.cfg", "a = 1\n", "a = 1\n")
    assert not same_code("setup.cfg", "a = 1\n", "a  = 1\n")
    assert not same_code("pkg/broken.py", "def f(:\n", "def f( :\n")
    assert same_code("pkg/gone.py", None, None)
    assert not same_code("pkg/gone.py", None, "x = 1\n")


def test_hunks_off_by_some_lines_new_files_and_missing_final_newlines(repo: Path):
    (repo / "pkg" / "stats.py").write_text("# header\n# more\n" + STATS)  # the hunk now sits 2 lines lower
    diff = FIX + (
        "--- /dev/null\n+++ b/pkg/extra.py\n@@ -0,0 +1,2 @@\n+A = 1\n+B = 2\n\\ No newline at end of file\n"
        "--- a/pkg/helper.py\n+++ b/pkg/helper.py\n@@ -2 +2 @@\n-    return x * 2\n+    return x * 3\n"
    )
    texts = reference_texts(repo, diff)
    assert texts["pkg/stats.py"] == "# header\n# more\n" + STATS.replace("500 < status", "500 <= status")
    assert texts["pkg/extra.py"] == "A = 1\nB = 2"
    assert texts["pkg/helper.py"] == "def double(x):\n    return x * 3\n"
    assert [(p.old, p.new, len(p.hunks)) for p in parse_diff(diff)] == [
        ("pkg/stats.py", "pkg/stats.py", 1),
        (None, "pkg/extra.py", 1),
        ("pkg/helper.py", "pkg/helper.py", 1),
    ]


def test_context_lines_whose_lone_space_an_editor_stripped_still_apply(repo: Path):
    stripped = FIX.replace("\n \n", "\n\n")
    assert stripped != FIX
    assert reference_texts(repo, stripped) == reference_texts(repo, FIX)


def test_a_diff_that_does_not_fit_the_task_is_an_error(repo: Path):
    with pytest.raises(PatchError, match="does not match the file"):
        reference_texts(repo, FIX.replace("500 < status < 600", "400 < status < 600"))
    with pytest.raises(PatchError, match="a file the task does not have"):
        reference_texts(repo, FIX.replace("pkg/stats.py", "pkg/other.py"))
    with pytest.raises(PatchError, match="unusable path"):
        reference_texts(repo, FIX.replace("b/pkg/stats.py", "b/../stats.py"))
    with pytest.raises(PatchError, match="ends inside a hunk"):
        reference_texts(repo, FIX.rsplit(" def count", 1)[0])


def test_a_task_without_a_usable_solution_diff_is_not_compared(tmp_path: Path):
    task = load_task(write_task(tmp_path, "adder"))
    fixed = {"adder.py": "def add(a, b):\n    return a + b\n"}
    assert task_matches_reference(task, fixed) is None  # no solution.diff
    (task.folder / "solution.diff").write_text(
        "--- a/adder.py\n+++ b/adder.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a + b + 1\n"
        "+    return a + b\n"
    )
    assert task_matches_reference(task, fixed) is True
    assert task_matches_reference(task, {"adder.py": "def add(a, b):\n    return b + a\n"}) is False
    (task.folder / "solution.diff").write_text("--- a/adder.py\n+++ b/adder.py\n@@ -1 +1 @@\n-nothing\n+x\n")
    assert task_matches_reference(task, fixed) is None


def test_every_task_reference_applies_as_patch_applies_it(tmp_path: Path):
    for task in load_tasks(TASKS_DIR).values():
        fixed = tmp_path / task.id
        shutil.copytree(task.repo, fixed)
        diff = (task.folder / "solution.diff").read_text()
        subprocess.run(["patch", "-p1", "--batch", "-d", str(fixed)], input=diff, text=True, check=True,
                       capture_output=True)  # fmt: skip
        texts = reference_texts(task.repo, diff)
        assert texts and all((fixed / path).read_text() == text for path, text in texts.items()), task.id
        assert task_matches_reference(task, texts) is True, task.id
        assert task_matches_reference(task, {}) is False, task.id


def test_a_record_from_before_the_comparison_loads_with_none():
    data = healed("a", "x", matches_reference=True).as_dict()
    assert TaskRun.from_dict(data).matches_reference is True
    del data["matches_reference"]
    assert TaskRun.from_dict(data).matches_reference is None


def test_only_a_heal_that_reported_healed_keeps_the_comparison(tmp_path: Path):
    task = load_task(write_task(tmp_path, "adder"))
    metrics = {"candidates_tried": 3, "candidates_screened": 3, "screen_s": 0.5, "wall_s": 2.0,
               "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0}  # fmt: skip
    for status, kept in (("healed", True), ("partial", None), ("not_healed", None)):
        report = {"status": status, "metrics": metrics, "iterations": 1}
        assert from_report(task, report, [], None, "0123456789ab", True).matches_reference is kept
