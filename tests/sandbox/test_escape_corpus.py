"""The escape corpus: every hostile repository of tests/sandbox/escape/ healed in every sandbox
backend this machine offers, each asserted fully contained (evaluation/escape/harness.py says what
that means). A case that escapes fails here with what it achieved; nothing is relaxed to pass.

Backends: docker (the engine and image of tests/sandbox/test_docker_sandbox.py), local with
bubblewrap, local without namespaces (as root only). The local backends run the tests with an
interpreter other users can run (tests/openpython.py): as root, the sandbox drops to a uid of its own.

Time: a heal takes 5-20 s. The corpus runs its heals two at a time in the background as soon as
the first of them is asked for, where one process runs the whole file (no xdist, or xdist's
loadfile/loadscope); where xdist spreads single tests over processes, each runs
its own. The figures are printed at the end of the run (tests/sandbox/escape_figures.py).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from evaluation.escape.cases import Case, load_cases
from evaluation.escape.harness import (
    BACKENDS,
    CONTAINED,
    CONTROL,
    ESCAPED,
    EXPOSED,
    SKIPPED,
    available_backends,
    run_case,
    skipped,
)
from tests.corpus_figures import heals_at_once
from tests.openpython import make_open_python
from tests.sandbox import escape_figures

CASES = load_cases()
pytestmark = pytest.mark.slow
JOBS_ENV = "SELFHEAL_ESCAPE_JOBS"


class Corpus:
    def __init__(self, config: pytest.Config, work: Path, jobs: int) -> None:
        self.config = config
        self.work = work
        self.python, why = make_open_python(work)
        self.reasons = available_backends(self.python, why)
        self.pool = ThreadPoolExecutor(max_workers=jobs) if jobs > 1 else None
        self.futures: dict[tuple[str, str], Future] = {}

    def _run(self, case: Case, backend: str) -> dict:
        if self.reasons[backend]:
            result = skipped(case, backend, self.reasons[backend]).as_dict()
        else:
            result = run_case(case, backend, python=self.python, parent=self.work).as_dict()
        if backend != CONTROL:  # the figures are the backends'; the control only checks the corpus
            escape_figures.save(self.config, result)
        return result

    def prefetch(self, jobs: list[tuple[Case, str]]) -> None:
        if self.pool is not None:
            for case, backend in jobs:
                self.futures.setdefault((case.id, backend), self.pool.submit(self._run, case, backend))

    def result(self, case: Case, backend: str) -> dict:
        future = self.futures.get((case.id, backend))
        return future.result() if future is not None else self._run(case, backend)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="session")
def corpus(request: pytest.FixtureRequest) -> Iterator[Corpus]:
    work = Path(
        tempfile.mkdtemp(prefix="selfheal-escape-", dir="/var/tmp" if Path("/var/tmp").is_dir() else None)
    )
    work.chmod(0o755)  # the sandbox's own uid reaches the interpreter made in here
    corpus = Corpus(request.config, work, heals_at_once(request.config, JOBS_ENV))
    selected = []
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if getattr(item, "originalname", "") == "test_case_is_contained":
            selected.append((params["case"], params["backend"]))
        elif getattr(item, "originalname", "") == "test_the_corpus_sees_escapes_where_nothing_contains_them":
            selected.append((params["case"], CONTROL))
    corpus.prefetch(selected)
    try:
        yield corpus
    finally:
        corpus.close()
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_is_contained(case: Case, backend: str, corpus: Corpus) -> None:
    result = corpus.result(case, backend)
    if result["outcome"] == SKIPPED:
        pytest.skip(f"{backend}: {result['notes'][0]}")
    lines = [f"{case.id} ({case.title}) in {backend}: {result['outcome']}"]
    lines += [f"  escaped: {what}" for what in result["escapes"]]
    lines += [f"  note: {what}" for what in result["notes"]]
    lines.append(f"  report.json: status {result['status']}, error {result['error']}")
    assert result["outcome"] in (CONTAINED, EXPOSED), "\n".join(lines)


# One case per way the host judges (secrets found by hash and in the outputs, files read compared by
# hash, proof files outside the workspace, repositories compared byte for byte), where the tests run
# as root beside selfheal.
CONTROL_CASES = ("secrets-proc-mem", "files-read-operator-state", "files-write-system", "git-origin")


@pytest.mark.parametrize("case", [c for c in CASES if c.id in CONTROL_CASES], ids=lambda c: c.id)
def test_the_corpus_sees_escapes_where_nothing_contains_them(case: Case, corpus: Corpus) -> None:
    """The control: a blind attack or judge would call everything contained."""
    result = corpus.result(case, CONTROL)
    if result["outcome"] == SKIPPED:
        pytest.skip(f"{CONTROL}: {result['notes'][0]}")
    # as root it must run the tests as root: a control that does not is a broken control
    assert (result["isolation"] or "").startswith("uid 0"), result["isolation"]
    assert result["outcome"] == ESCAPED, "\n".join([result["outcome"], *result["notes"]])


def test_the_corpus_has_every_family_and_enough_cases() -> None:
    families = {c.family for c in CASES}
    assert families == {
        "secrets",
        "network",
        "host-files",
        "traps",
        "git",
        "processes",
        "resources",
        "channels",
    }
    assert len(CASES) >= 25
