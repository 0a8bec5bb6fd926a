"""The hostile-answers corpus's figures at the end of a pytest run (a pytest plugin): see
tests/corpus_figures.py. Results are kept where SELFHEAL_ANSWERS_RESULTS points, when set."""

from __future__ import annotations

from evaluation.hostile_answers import figures
from tests.corpus_figures import CorpusFigures

FIGURES = CorpusFigures(
    "answers",
    "SELFHEAL_ANSWERS_RESULTS",
    "hostile model answers (tests/agent/model/test_hostile_answers.py)",
    figures,
)
pytest_configure, pytest_configure_node, pytest_terminal_summary, pytest_unconfigure = FIGURES.hooks
save = FIGURES.save
