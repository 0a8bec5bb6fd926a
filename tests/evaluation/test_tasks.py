from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.bench.tasks import TASKS_DIR, TaskError, load_subsets, load_task, load_tasks, select
from tests.evaluation.helpers import TASK_TOML, write_task


def test_a_well_formed_task_loads_with_its_metadata(tmp_path: Path):
    folder = write_task(tmp_path, "adder")
    task = load_task(folder)
    assert (task.id, task.category, task.difficulty, task.kind) == (
        "adder",
        "numeric",
        "easy",
        ("single-edit",),
    )
    assert task.visible_failing == ("tests/test_add.py::test_add",)
    assert task.repo == folder / "repo"
    assert [p.name for p in task.hidden_tests] == ["test_reference.py"]


def test_a_missing_key_and_a_wrong_type_are_both_named(tmp_path: Path):
    toml = (
        TASK_TOML.format(id="adder")
        .replace('category = "numeric"\n', "")
        .replace('kind = ["single-edit"]', 'kind = "single-edit"')
    )
    folder = write_task(tmp_path, "adder", toml=toml)
    with pytest.raises(TaskError) as caught:
        load_task(folder)
    message = str(caught.value)
    assert "task adder" in message
    assert "missing key 'category'" in message
    assert "'kind' must be a non-empty list, not 'single-edit'" in message


def test_an_id_that_is_not_the_folder_name_is_refused(tmp_path: Path):
    folder = write_task(tmp_path, "adder", toml=TASK_TOML.format(id="subtractor"))
    with pytest.raises(TaskError, match="id 'subtractor' differs from the folder name 'adder'"):
        load_task(folder)


def test_invalid_toml_missing_hidden_tests_and_missing_task_toml(tmp_path: Path):
    broken = write_task(tmp_path, "broken", toml='id = "broken\n')
    with pytest.raises(TaskError, match=r"task\.toml is not valid TOML"):
        load_task(broken)
    no_hidden = write_task(tmp_path, "nohidden", hidden=False)
    with pytest.raises(TaskError, match=r"hidden/ holds no test_\*.py file"):
        load_task(no_hidden)
    lost = write_task(tmp_path / "other", "lost", toml=False)
    with pytest.raises(TaskError, match=r"task\.toml is missing"):
        load_tasks(lost.parent)  # a folder with repo/ but no task.toml is not skipped silently


def test_subsets_default_full_and_reject_unknown_ids(tmp_path: Path):
    for name in ("a", "b", "c"):
        write_task(tmp_path, name)
    tasks = load_tasks(tmp_path)
    assert load_subsets(tmp_path, tasks) == {"full": ("a", "b", "c")}
    (tmp_path / "subsets.toml").write_text('[smoke]\ntasks = ["b", "a"]\n')
    assert load_subsets(tmp_path, tasks) == {"smoke": ("b", "a"), "full": ("a", "b", "c")}
    assert [t.id for t in select(tmp_path, "smoke", None)] == ["b", "a"]
    assert [t.id for t in select(tmp_path, "smoke", ["a"])] == ["a"]
    assert [t.id for t in select(tmp_path, None, ["c", "a"])] == ["c", "a"]
    with pytest.raises(TaskError, match=r"task\(s\) c are not in subset 'smoke'"):
        select(tmp_path, "smoke", ["c"])
    with pytest.raises(TaskError, match="unknown subset 'nightly'; subsets: full, smoke"):
        select(tmp_path, "nightly", None)
    (tmp_path / "subsets.toml").write_text('[smoke]\ntasks = ["a", "zzz"]\n')
    with pytest.raises(TaskError, match=r"\[smoke\] names tasks that do not exist: zzz"):
        load_subsets(tmp_path, tasks)
    (tmp_path / "subsets.toml").write_text("[smoke]\ntasks = []\n")
    with pytest.raises(TaskError, match=r"\[smoke\] needs a non-empty list"):
        load_subsets(tmp_path, tasks)


def test_the_digest_changes_with_the_task_and_not_with_caches(tmp_path: Path):
    folder = write_task(tmp_path, "adder")
    first = load_task(folder).digest()
    assert len(first) == 12 and int(first, 16) >= 0
    (folder / "repo" / "__pycache__").mkdir()
    (folder / "repo" / "__pycache__" / "adder.cpython-311.pyc").write_bytes(b"\x00cache")
    assert load_task(folder).digest() == first
    (folder / "hidden" / "test_reference.py").write_text("def test_nothing():\n    pass\n")
    assert load_task(folder).digest() != first


def test_the_repository_tasks_load():
    tasks = load_tasks(TASKS_DIR)
    assert len(tasks) >= 1
    assert all(task.hidden_tests and (task.repo / "tests").is_dir() for task in tasks.values())
    assert set(load_subsets(TASKS_DIR, tasks)["full"]) == set(tasks)
