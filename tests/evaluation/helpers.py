"""Task records and task folders built for the benchmark's tests."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

from evaluation.bench.record import HiddenRun, TaskRun

PASSING_HIDDEN = HiddenRun(passed=3, failed=0, failing=())
FAILING_HIDDEN = HiddenRun(
    passed=2, failed=1, failing=("_hidden/test_reference.py::test_edge",), output="E assert"
)


def make_run(task_id: str, category: str, **changes) -> TaskRun:
    run = TaskRun(
        id=task_id, category=category, difficulty="easy", kind=("single-edit",),
        task_digest="0123456789ab", status="not_healed",
        self_reported=False, reference_validated=False, first_pass=False, iterations=1, candidates_tried=0,
        candidates_screened=0, screen_s=0.0, first_plausible=None, fix_family=None, fix_strategy=None,
        fix=None, wall_s=1.0, tokens=0, cost_usd=0.0, new_fail_to_pass=0, new_guard=0, hidden=None,
        error=None,
    )  # fmt: skip
    return replace(run, **changes)


def healed(task_id: str, category: str, *, iterations: int = 1, validated: bool = True, **changes) -> TaskRun:
    return make_run(
        task_id, category, status="healed", self_reported=True, reference_validated=validated,
        first_pass=iterations == 1, iterations=iterations, first_plausible=2,
        fix_family="comparison-operator", fix_strategy="search", fix=f"{task_id}: `<` -> `<=`",
        hidden=PASSING_HIDDEN if validated else FAILING_HIDDEN, **changes,
    )  # fmt: skip


TASK_TOML = """
id = "{id}"
category = "numeric"
difficulty = "easy"
summary = "Adds numbers."
bug = "Off by one."
kind = ["single-edit"]
test_command = "pytest -q"
visible_failing = ["tests/test_add.py::test_add"]
"""


def write_task(root: Path, task_id: str, *, toml: str | None = None, hidden: bool = True) -> Path:
    folder = root / task_id
    (folder / "repo" / "tests").mkdir(parents=True)
    (folder / "repo" / "adder.py").write_text("def add(a, b):\n    return a + b + 1\n")
    (folder / "repo" / "tests" / "test_add.py").write_text(
        "from adder import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    if toml is not False:
        text = TASK_TOML.format(id=task_id) if toml is None else toml
        (folder / "task.toml").write_text(textwrap.dedent(text).lstrip())
    if hidden:
        (folder / "hidden").mkdir()
        (folder / "hidden" / "test_reference.py").write_text(
            "from adder import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
        )
    return folder
