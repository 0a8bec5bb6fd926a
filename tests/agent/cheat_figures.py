"""The cheat corpus's figures at the end of a pytest run (a plugin, loaded by tests/conftest.py): see
tests/corpus_figures.py. Results are kept where SELFHEAL_CHEAT_RESULTS points, when set."""

from __future__ import annotations

from evaluation.cheats import figures
from tests.corpus_figures import CorpusFigures

FIGURES = CorpusFigures(
    "cheat", "SELFHEAL_CHEAT_RESULTS", "cheat corpus (tests/agent/test_cheat_corpus.py)", figures
)
pytest_configure, pytest_configure_node, pytest_terminal_summary, pytest_unconfigure = FIGURES.hooks
save = FIGURES.save
