"""`selfheal bench` end to end, as a user runs it: a subprocess, real heals, real hidden tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evaluation.bench.output import validate
from evaluation.bench.tasks import TASKS_DIR, load_subsets, load_tasks
from tests.evaluation.helpers import write_task

ROOT = Path(__file__).resolve().parents[2]
GATE = ROOT / "evaluation" / "gate.toml"
BASELINE = ROOT / "evaluation" / "results" / "smoke-embedded.json"
SELFHEAL = [sys.executable, "-m", "selfheal.cli"]
# Two smoke tasks the embedded engine heals; access-log-stats's first plausible candidate is the
# second one screened, so a budget of one candidate cannot heal it (the weakened run below).
HEALS, NEEDS_TWO_CANDIDATES = "pagination-page-count", "access-log-stats"


def bench(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    return subprocess.run(
        [*SELFHEAL, "bench", *args], cwd=cwd, env={**environment, **(env or {})},
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def test_the_chosen_tasks_are_in_the_smoke_subset():
    smoke = load_subsets(TASKS_DIR, load_tasks(TASKS_DIR))["smoke"]
    assert {HEALS, NEEDS_TWO_CANDIDATES} <= set(smoke)


@pytest.mark.slow
def test_a_smoke_run_heals_checks_hidden_tests_writes_everything_and_passes_the_gate(tmp_path: Path):
    step_summary = tmp_path / "step-summary.md"
    done = bench(
        "--subset", "smoke", "--tasks", f"{HEALS},{NEEDS_TWO_CANDIDATES}", "--workers", "2",
        "--json", "out/result.json", "--plot", "out/chart.png", "--summary", "out/summary.md",
        "--runs", "runs", "--gate", str(GATE), "--baseline", str(BASELINE),
        cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(step_summary)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads((tmp_path / "out" / "result.json").read_text())  # relative to where it ran
    validate(document)
    tasks = {t["id"]: t for t in document["tasks"]}
    assert list(tasks) == [HEALS, NEEDS_TWO_CANDIDATES]
    for task in tasks.values():
        assert (task["status"], task["self_reported"], task["reference_validated"]) == ("healed", True, True)
        assert task["hidden"]["failed"] == 0 and task["hidden"]["passed"] >= 1
        assert task["iterations"] >= 1 and task["candidates_screened"] >= task["first_plausible"] >= 1
        assert task["fix_strategy"] == "search" and task["fix_family"]
        assert task["tokens"] == 0 and task["cost_usd"] == 0
        assert (tmp_path / "runs" / task["id"] / "report.json").is_file()
        assert (tmp_path / "runs" / task["id"] / "report.html").is_file()  # the run drawn, beside it
    assert tasks[NEEDS_TWO_CANDIDATES]["first_plausible"] == 2
    assert document["overall"]["reference_validated_rate"] == 1.0
    assert document["overfitting"] == []
    assert document["gate"]["passed"] is True and document["gate"]["subset"] == "smoke"
    baseline = document["baseline"]  # both tasks were reference-validated in the saved smoke run too
    assert (baseline["file"], baseline["newly_validated"], baseline["no_longer_validated"]) == (
        str(BASELINE),
        [],
        [],
    )
    assert baseline["not_in_baseline"] == []
    assert document["settings"]["provider"] == "none" and document["settings"]["workers"] == 2
    assert (tmp_path / "out" / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert f"| {HEALS} |" in summary and "reference validated **100%**" in summary
    assert step_summary.read_text() == summary + "\n"
    assert "Gate [smoke]" in done.stdout and "PASSED" in done.stdout
    assert "[2/2]" in done.stderr  # the progress lines of a non-terminal


@pytest.mark.slow
def test_a_weakened_engine_misses_the_smoke_gate_and_says_which_threshold(tmp_path: Path):
    done = bench(
        "--subset", "smoke", "--tasks", NEEDS_TWO_CANDIDATES, "--max-candidates", "1",
        "--max-iterations", "1", "--json", "weak.json", "--gate", str(GATE), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    document = json.loads((tmp_path / "weak.json").read_text())
    [task] = document["tasks"]
    assert (task["status"], task["candidates_screened"], task["reference_validated"]) == (
        "not_healed",
        1,
        False,
    )
    assert document["gate"]["passed"] is False
    assert (
        "gate [smoke]: MISSED: reference_validated_rate = 0 (threshold reference_validated_rate_min: >="
        in (done.stderr)
    )


def test_bad_input_exits_2_with_the_reason(tmp_path: Path):
    done = bench("--tasks", "no-such-task", cwd=tmp_path)
    assert (done.returncode, done.stderr.strip()) == (2, "selfheal bench: unknown task(s): no-such-task")
    write_task(tmp_path / "tasks", "adder", hidden=False)
    done = bench("--tasks-dir", str(tmp_path / "tasks"), "--tasks", "adder", cwd=tmp_path)
    assert done.returncode == 2
    assert "task adder" in done.stderr and "hidden/ holds no test_*.py file" in done.stderr
    done = bench("--subset", "smoke", "--provider", "anthropic", "--gate", str(GATE), cwd=tmp_path)
    assert done.returncode == 2
    assert "thresholds were measured with provider 'none', this run uses 'anthropic'" in done.stderr


def test_python_m_evaluation_bench_is_the_same_command():
    done = subprocess.run(
        [sys.executable, "-m", "evaluation.bench", "--tasks", "no-such-task"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stderr.strip()) == (2, "selfheal bench: unknown task(s): no-such-task")


def test_without_a_clone_selfheal_bench_says_where_it_runs(tmp_path: Path):
    # selfheal as pip installs it: the package alone, no evaluation/ beside it or above the cwd
    shutil.copytree(
        ROOT / "selfheal", tmp_path / "site" / "selfheal", ignore=shutil.ignore_patterns("__pycache__")
    )
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from selfheal.cli import main; sys.exit(main(['bench']))"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("selfheal bench runs from a clone of the repository")
