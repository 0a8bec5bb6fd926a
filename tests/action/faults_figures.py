"""The fault cases' figures at the end of a pytest run (a plugin, loaded by tests/conftest.py): see
tests/corpus_figures.py. Results are kept where SELFHEAL_FAULTS_RESULTS points, when set."""

from __future__ import annotations

from evaluation.faults import figures
from tests.corpus_figures import CorpusFigures

FIGURES = CorpusFigures(
    "faults", "SELFHEAL_FAULTS_RESULTS", "fault cases (tests/action/test_faults.py)", figures
)
pytest_configure, pytest_configure_node, pytest_terminal_summary, pytest_unconfigure = FIGURES.hooks
save = FIGURES.save
