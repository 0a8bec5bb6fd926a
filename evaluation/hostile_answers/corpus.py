"""The hostile-answers corpus as the corpus runner runs it (`python -m evaluation.corpora
hostile_answers`): a real heal per case, its model roles scripted, in the local sandbox."""

from __future__ import annotations

import argparse

from evaluation.corpus.runner import KEEP, Corpus, Outcome, one_by_one, option
from evaluation.hostile_answers import figures
from evaluation.hostile_answers.cases import Case, load_cases
from evaluation.hostile_answers.harness import run_case


def run_one(case: Case, options: argparse.Namespace) -> Outcome:
    return run_case(case, None, options.python, options.keep).as_dict()


def passed(result: Outcome) -> bool:
    """The decision correct, and no crash."""
    return result["correct"] and not result["crashed"]


def progress(result: Outcome) -> str:
    mark = "correct" if result["correct"] else "WRONG"
    return f"{result['case']}: {mark}, exit {result['exit_code']} ({result['duration_s']:.1f}s)"


HOSTILE_ANSWERS = Corpus(
    name="hostile_answers",
    summary="Heal every hostile-answer case (tests/agent/model/hostile_answers/: scripted model roles, the "
    "local sandbox, the real loop and verdict): every decision must be correct, with no crash.",
    load_cases=load_cases,
    harness=one_by_one(run_one),
    figures=figures,
    passed=passed,
    progress=progress,
    options=(
        option("--python", metavar="PATH", help="the sandbox's test interpreter (default: this one)"),
        KEEP,
    ),
)
