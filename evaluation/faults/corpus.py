"""The fault cases as the corpus runner runs them (`python -m evaluation.corpora faults`): every case,
the variants marked `full` among them, each run and then run again with the fault gone."""

from __future__ import annotations

import argparse

from evaluation.corpus.runner import KEEP, Corpus, Outcome, one_by_one
from evaluation.faults import figures
from evaluation.faults.cases import Case, load_cases
from evaluation.faults.harness import run_case


def run_one(case: Case, options: argparse.Namespace) -> Outcome:
    return run_case(case, keep=options.keep).as_dict()


def passed(result: Outcome) -> bool:
    """Every requirement held."""
    return result["held"]


def progress(result: Outcome) -> str:
    verdict = "held" if result["held"] else "FAILED " + ", ".join(result["failed"])
    return f"{result['case']} [{result['family']}]: {verdict} ({result['duration_s']:.1f}s)"


FAULTS = Corpus(
    name="faults",
    summary="Run the fault cases (tests/action/faults/): each must hold every requirement, its next run "
    "included.",
    load_cases=load_cases,
    harness=one_by_one(run_one),
    figures=figures,
    passed=passed,
    progress=progress,
    unit="cases",
    options=(KEEP,),
)
