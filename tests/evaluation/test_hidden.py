from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evaluation.bench.hidden import is_test_module, patched_copy, run_hidden
from evaluation.bench.tasks import TASKS_DIR, load_tasks


def _reference_fix(task, tmp_path: Path) -> dict[str, str]:
    """The files solution.diff changes, as text: what a correct heal would ship."""
    fixed = tmp_path / "reference"
    patched_copy(task, {}, fixed)
    diff = (task.folder / "solution.diff").read_text()
    subprocess.run(["patch", "-p1", "--batch", "-d", str(fixed)], input=diff, text=True, check=True,
                   capture_output=True)  # fmt: skip
    changed = [line[6:].strip() for line in diff.splitlines() if line.startswith("+++ b/")]
    return {path: (fixed / path).read_text() for path in changed}


def test_the_reference_fix_passes_the_hidden_tests_and_the_base_code_fails_them(tmp_path: Path):
    task = next(iter(load_tasks(TASKS_DIR).values()))
    fixed = run_hidden(
        task, patched_copy(task, _reference_fix(task, tmp_path), tmp_path / "fixed"), sys.executable, 60
    )
    assert fixed.ok, fixed.output
    assert (fixed.failed, fixed.failing, fixed.timed_out) == (0, (), False)
    assert fixed.passed >= 1

    base = run_hidden(task, patched_copy(task, {}, tmp_path / "base"), sys.executable, 60)
    assert not base.ok
    assert base.failed >= 1
    assert all(node.startswith("_hidden") for node in base.failing)
    assert base.passed + base.failed == fixed.passed


def test_a_patch_that_writes_a_file_in_the_copy_is_not_reference_validated(tmp_path: Path):
    """The reference fix, plus a line that plants a conftest.py beside the hidden tests when the
    module is imported: the hidden tests pass, but the run changed the copy, so the patch is not
    validated, and the record names the file."""
    task = next(iter(load_tasks(TASKS_DIR).values()))
    fixed = _reference_fix(task, tmp_path)
    path, text = next(iter(fixed.items()))
    planting = (
        "\n\nimport os as _os\n\n"
        "open(_os.path.join(_os.getcwd(), '_hidden', 'conftest.py'), 'w').write('# planted\\n')\n"
    )
    copy = patched_copy(task, {path: text + planting}, tmp_path / "planted")
    result = run_hidden(task, copy, sys.executable, 60)
    assert result.failed == 0 and result.passed >= 1  # the tests alone would have said it holds
    assert result.changed == ("_hidden/conftest.py (created)",)
    assert not result.ok

    honest = run_hidden(task, patched_copy(task, fixed, tmp_path / "honest"), sys.executable, 60)
    assert honest.ok and honest.changed == ()


def test_a_patch_that_hangs_is_killed_at_the_timeout(tmp_path: Path):
    task = next(iter(load_tasks(TASKS_DIR).values()))
    copy = patched_copy(task, {"conftest.py": "import time\n\ntime.sleep(60)\n"}, tmp_path / "hang")
    result = run_hidden(task, copy, sys.executable, 2)
    assert result.timed_out
    assert not result.ok
    assert result.output == "hidden tests timed out after 2s"


def test_a_patch_may_not_write_outside_the_copy(tmp_path: Path):
    task = next(iter(load_tasks(TASKS_DIR).values()))
    with pytest.raises(ValueError, match=r"outside the repository: \.\./escape\.py"):
        patched_copy(task, {"../escape.py": "x = 1\n"}, tmp_path / "copy")
    assert not (tmp_path / "escape.py").exists()


@pytest.mark.parametrize(
    ("name", "collected"),
    [
        ("test_api.py", True),
        ("jsonpickle_test.py", True),  # pytest's other default pattern: a release's tests named so
        ("tests.py", True),
        ("conftest.py", False),
        ("helper.py", False),
        ("test_data.json", False),
    ],
)
def test_which_hidden_files_are_run_as_tests(name, collected):
    assert is_test_module(name) is collected
