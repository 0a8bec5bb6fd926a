"""evaluation/scale.py on a small size: the repository it builds, the heal, and the figures it
prints (their values are the script's to measure, on its full size; here only their shape)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from evaluation.scale import build, stage_seconds

ROOT = Path(__file__).resolve().parents[2]


def test_the_repository_is_built_from_its_seed_with_one_seeded_bug(tmp_path):
    repo = build(tmp_path / "a", functions=12, tests_per_function=3, seed=3)
    again = build(tmp_path / "b", functions=12, tests_per_function=3, seed=3)
    assert (repo.tests, repo.failing) == (again.tests, again.failing)
    engine_a, engine_b = (r.path / "metrics" / "engine.py" for r in (repo, again))
    assert engine_a.read_text() == engine_b.read_text()
    assert repo.tests == 12 * 3 + 4  # three per function, and four pipeline tests
    assert repo.buggy_function == "measure_0007"
    assert repo.failing[0] == "tests/test_engine_00.py::test_measure_0007_0"
    engine = (repo.path / "metrics" / "engine.py").read_text()
    assert engine.count("def measure_") == 12
    assert (engine.count("value >= "), engine.count("value > ")) == (11, 1 + engine.count("value > largest"))


def test_stage_seconds_sum_each_step_and_leave_out_screenings():
    trace = [
        {"node": "baseline", "start": 10.0, "end": 12.5},
        {"node": "validate", "start": 20.0, "end": 21.0},
        {"node": "validate", "start": 30.0, "end": 30.5},
        {"node": "screen", "start": 40.0, "end": 40.0},
        {"node": "repair", "start": 41.0, "end": None},
    ]
    assert stage_seconds(trace) == {"baseline": 2.5, "validate": 1.5}


def test_a_small_run_heals_the_seeded_bug_and_prints_its_figures(tmp_path):
    done = subprocess.run(
        [sys.executable, "evaluation/scale.py", "--functions", "90", "--tests-per-function", "4",
         "--max-minutes", "6", "--keep", str(tmp_path), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-2000:]
    printed = json.loads(done.stdout)
    repository, figures = printed["repository"], printed["figures"]
    assert repository["tests"] == 90 * 4 + 9
    assert repository["buggy_function"] == "measure_0046"
    assert (figures["status"], figures["healed"], figures["exit_code"]) == ("healed", True, 0)
    assert figures["failing_before"] == len(repository["failing"]) >= 1
    assert {"baseline", "coverage", "localize", "repair", "validate"} <= set(figures["stages_s"])
    # more than 300 passing tests: coverage in two steps, not the whole suite under the tracer
    assert figures["coverage"]["whole_suite"] is False
    assert figures["coverage"]["traced_failing"] == figures["failing_before"]
    assert 0 < figures["coverage"]["traced_passing"] <= 200
    assert figures["candidates_screened"] >= 1
    assert figures["screen_s_per_candidate"] > 0
    added = [line for line in figures["patch"].splitlines() if line.startswith("+ ")]
    assert len(added) == 1 and "value >= " in added[0]
