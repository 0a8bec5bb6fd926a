"""Hostile faults around a heal that publishes, one test per case of tests/action/faults/: GitHub
failing at each call site (500, 502, rate limits, no answer), SIGTERM and SIGKILL at each stage,
a full output disk. evaluation/faults/harness.py runs each case (`selfheal action` as a process
against the fake GitHub, then the same event again) and judges every requirement; a case that
fails one fails here with what was seen. The figures are printed at the end of the run
(tests/action/faults_figures.py).
"""

from __future__ import annotations

import os

import pytest

from evaluation.faults.cases import load_cases
from evaluation.faults.harness import run_case
from tests.action import faults_figures

CASES = load_cases()
pytestmark = pytest.mark.slow


def _skip_reason(case) -> str:
    if case.disk_kb and os.geteuid() != 0:
        return "mounting a small tmpfs needs root"
    return ""


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fault_case_holds(case, request: pytest.FixtureRequest, tmp_path) -> None:
    reason = _skip_reason(case)
    if reason:
        pytest.skip(reason)
    result = run_case(case, parent=tmp_path).as_dict()
    faults_figures.save(request.config, result)
    assert result["held"], "\n".join(f"{k}: {v}" for k, v in result["failed"].items())


def test_cases_are_data_with_known_families() -> None:
    assert {c.family for c in CASES} == {"github", "signals", "disk"}
    assert len({c.id for c in CASES}) == len(CASES)
