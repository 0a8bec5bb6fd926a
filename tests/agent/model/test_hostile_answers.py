"""The hostile-answers corpus (tests/agent/model/hostile_answers/): each case's scripted answers
driven through a real heal (local sandbox, real loop, screening and verdict), judged by
evaluation/hostile_answers/harness.py: no crash, the exit code `selfheal heal` would give, and the
decision the case expects. Nothing is relaxed to pass.

Time: a heal takes 5-20 s. As tests/sandbox/test_escape_corpus.py does, the corpus runs its heals
two at a time in the background as soon as the first is asked for, where one process runs the
whole file (no xdist, or xdist's loadfile/loadscope); where xdist spreads single
tests over processes, each runs its own. The figures are printed at the end of the run
(tests/agent/model/hostile_figures.py).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from evaluation.hostile_answers.cases import FAMILIES, Case, load_cases
from evaluation.hostile_answers.harness import Outcome, run_case
from tests.agent.model import hostile_figures
from tests.corpus_figures import heals_at_once

CASES = load_cases()
pytestmark = pytest.mark.slow
JOBS_ENV = "SELFHEAL_HOSTILE_JOBS"


class Corpus:
    def __init__(self, config: pytest.Config, work: Path, jobs: int) -> None:
        self.config = config
        self.work = work
        self.pool = ThreadPoolExecutor(max_workers=jobs) if jobs > 1 else None
        self.futures: dict[str, Future] = {}

    def _run(self, case: Case) -> Outcome:
        outcome = run_case(case, self.work)
        hostile_figures.save(self.config, outcome.as_dict())
        return outcome

    def prefetch(self, cases: list[Case]) -> None:
        if self.pool is not None:
            for case in cases:
                self.futures.setdefault(case.id, self.pool.submit(self._run, case))

    def result(self, case: Case) -> Outcome:
        future = self.futures.get(case.id)
        return future.result() if future is not None else self._run(case)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="session")
def corpus(request: pytest.FixtureRequest) -> Iterator[Corpus]:
    work = Path(tempfile.mkdtemp(prefix="selfheal-hostile-"))
    work.chmod(0o755)
    corpus = Corpus(request.config, work, heals_at_once(request.config, JOBS_ENV))
    selected = []
    for item in request.session.items:
        if getattr(item, "originalname", "") == "test_hostile_answer":
            selected.append(item.callspec.params["case"])
    corpus.prefetch(selected)
    try:
        yield corpus
    finally:
        corpus.close()
        shutil.rmtree(work, ignore_errors=True)


def test_the_corpus_has_every_family_and_enough_cases() -> None:
    assert [f for f in FAMILIES if any(c.family == f for c in CASES)] == list(FAMILIES)
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_answer(case: Case, corpus: Corpus) -> None:
    outcome = corpus.result(case)
    said = [f"{case.id} ({case.title}): {outcome.status}, exit {outcome.exit_code}"]
    said += [f"  wrong: {p}" for p in outcome.problems] + [f"  note: {n}" for n in outcome.notes]
    assert not outcome.crashed, "\n".join(said)
    assert outcome.correct, "\n".join(said)
    assert outcome.exit_code == (0 if outcome.status in ("healed", "nothing_to_heal") else 1), "\n".join(said)
