"""Hostile faults around a heal that publishes, one test per case of tests/action/faults/: GitHub
failing at each call site (500, 502, rate limits, no answer), the model API failing, the docker
sandbox's container killed, a full output disk, SIGTERM and SIGKILL at each stage.
evaluation/faults/harness.py runs each case (`selfheal action` or `selfheal heal` as a process
against the fakes, then the same event again) and judges every requirement; a case that fails one
fails here with what was seen. The figures are printed at the end of the run
(tests/action/faults_figures.py).

Time: a case is two heals. CI runs the cases not marked `full` (SELFHEAL_FAULTS_ALL=1: all).
Where one process runs this whole file (no xdist, or xdist's loadfile) the cases run two at a
time in the background from the first test on; where xdist hands out single tests (.ci/run's
worksteal), each runs its own. SELFHEAL_FAULTS_JOBS sets how many at once.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from evaluation.faults.cases import Case, load_cases
from evaluation.faults.harness import run_case
from tests.action import faults_figures
from tests.conftest import ReportSweep
from tests.corpus_figures import heals_at_once

ALL_CASES = load_cases()
ALL_ENV = "SELFHEAL_FAULTS_ALL"
# CI runs one case or two per call site and stage; the variants marked `full` run with
# SELFHEAL_FAULTS_ALL=1 and in `python -m evaluation.faults`
CASES = [c for c in ALL_CASES if os.environ.get(ALL_ENV) == "1" or not c.full]
pytestmark = pytest.mark.slow
JOBS_ENV = "SELFHEAL_FAULTS_JOBS"
# Cases that fail a requirement today, with why; strict, so a fix shows as XPASS and removes them.
KNOWN_FAILING: dict[str, str] = {}


@functools.cache
def _docker_ready() -> bool:
    if not shutil.which("docker"):
        return False
    done = subprocess.run(
        ["docker", "image", "inspect", "selfheal-sandbox:bookworm"], capture_output=True, check=False
    )
    return done.returncode == 0


def _skip_reason(case: Case) -> str:
    if case.disk_kb and os.geteuid() != 0:
        return "mounting a small tmpfs needs root"
    if case.kill_container and not _docker_ready():
        return "no Docker engine with the image selfheal-sandbox:bookworm"
    return ""


class Runs:
    def __init__(self, config: pytest.Config, work: Path, jobs: int) -> None:
        self.config = config
        self.work = work
        self.pool = ThreadPoolExecutor(max_workers=jobs) if jobs > 1 else None
        self.futures: dict[str, Future] = {}

    def _run(self, case: Case) -> dict | str:
        reason = _skip_reason(case)
        if reason:
            return reason
        result = run_case(case, parent=self.work).as_dict()
        faults_figures.save(self.config, result)
        return result

    def prefetch(self, cases: list[Case]) -> None:
        if self.pool is not None:
            for case in cases:
                self.futures.setdefault(case.id, self.pool.submit(self._run, case))

    def result(self, case: Case) -> dict | str:
        future = self.futures.get(case.id)
        return future.result() if future is not None else self._run(case)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="session")
def runs(request: pytest.FixtureRequest, report_sweep: ReportSweep) -> Iterator[Runs]:
    work = Path(tempfile.mkdtemp(prefix="selfheal-faults-"))
    work.chmod(0o755)
    runs = Runs(request.config, work, heals_at_once(request.config, JOBS_ENV))
    by_id = {c.id: c for c in CASES}
    selected = [
        by_id[item.callspec.params["case"].id]
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_fault_case_holds"
    ]
    runs.prefetch(selected)
    try:
        yield runs
    finally:
        runs.close()
        report_sweep.sweep(work)  # outside basetemp (another uid enters it): before it goes
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KNOWN_FAILING[c.id]))
        if c.id in KNOWN_FAILING
        else c
        for c in CASES
    ],
    ids=[c.id for c in CASES],
)
def test_fault_case_holds(case: Case, runs: Runs) -> None:
    result = runs.result(case)
    if isinstance(result, str):
        pytest.skip(result)
    lines = [f"{case.id} ({case.title})", *(f"  {k}: {v}" for k, v in result["failed"].items())]
    assert result["held"], "\n".join(lines)


def test_cases_are_data_with_known_families() -> None:
    families = {"github", "model", "sandbox", "disk", "signals"}
    assert {c.family for c in ALL_CASES} == families
    assert {c.family for c in ALL_CASES if not c.full} == families  # CI sees every family
    assert len({c.id for c in ALL_CASES}) == len(ALL_CASES)
    assert all(c.exit in (0, 1, 143, -9) for c in ALL_CASES)
