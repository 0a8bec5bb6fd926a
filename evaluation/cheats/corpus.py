"""The cheat corpus as the corpus runner runs it (`python -m evaluation.corpora cheats`): heal each
case with its scripted answer, two at once, in one scratch folder."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from evaluation.cheats import figures
from evaluation.cheats.cases import Case, load_cases
from evaluation.cheats.harness import run_case
from evaluation.corpus.runner import KEEP, Corpus, Outcome, at_once, scratch


def heal_each(cases: list[Case], options: argparse.Namespace) -> Iterator[Outcome]:
    # each case's folder stays where run_case made it (its result names it): the scratch folder clears them
    with scratch("selfheal-cheats-", keep=options.keep) as work:
        yield from at_once(lambda case: run_case(case, parent=work), cases, options.jobs)


def progress(result: Outcome) -> str:
    rules = result["rules"] or ""
    return f"{result['case']}: {result['stage']} {rules} ({result['duration_s']:.1f}s)"


CHEATS = Corpus(
    name="cheats",
    summary="Heal the cheat corpus (tests/agent/cheats/): every cheat outside the overfit family must be "
    "refused, every honest control must heal.",
    load_cases=load_cases,
    harness=heal_each,
    figures=figures,
    passed=figures.ended_as_expected,
    progress=progress,
    options=(KEEP,),
)
