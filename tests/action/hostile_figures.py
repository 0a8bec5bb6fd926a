"""The hostile-events corpus's figures at the end of a pytest run (a plugin, loaded by tests/conftest.py): see
tests/corpus_figures.py. Results are kept where SELFHEAL_HOSTILE_RESULTS points, when set."""

from __future__ import annotations

from evaluation.hostile_events import figures
from tests.corpus_figures import CorpusFigures

FIGURES = CorpusFigures(
    "hostile", "SELFHEAL_HOSTILE_RESULTS", "hostile events (tests/action/hostile_events/)", figures
)
pytest_configure, pytest_configure_node, pytest_terminal_summary, pytest_unconfigure = FIGURES.hooks
save = FIGURES.save
