"""The escape corpus as the corpus runner runs it (`python -m evaluation.corpora escape`): every case
in every backend asked for, a heal per case and backend; a backend this machine cannot offer gives
each case a skipped outcome that says why."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

from evaluation.corpus.runner import KEEP, Corpus, Outcome, at_once, option, scratch
from evaluation.escape import figures
from evaluation.escape.cases import Case, load_cases
from evaluation.escape.harness import (
    ALL_BACKENDS,
    BACKENDS,
    CONTAINED,
    CONTROL,
    EXPOSED,
    SKIPPED,
    available_backends,
    open_interpreter,
    run_case,
    skipped,
)


def heal_in_each_backend(cases: list[Case], options: argparse.Namespace) -> Iterator[Outcome]:
    # where the escape test makes its own (tests/sandbox/test_escape_corpus.py)
    under = "/var/tmp" if Path("/var/tmp").is_dir() else None
    with scratch("selfheal-escape-", keep=options.keep, under=under) as work:
        python, why = (options.python, "") if options.python else open_interpreter(work)
        reasons = available_backends(python, why)
        backends = options.backend or list(BACKENDS)

        def heal(job: tuple[Case, str]) -> Outcome:
            case, backend = job
            if reasons[backend]:
                return skipped(case, backend, reasons[backend]).as_dict()
            return run_case(case, backend, python=python, parent=work, keep=options.keep).as_dict()

        yield from at_once(heal, [(case, backend) for case in cases for backend in backends], options.jobs)


def passed(result: Outcome) -> bool:
    """Contained, or exposed only as the report states; a backend that cannot run here passes."""
    return result["outcome"] in (CONTAINED, EXPOSED, SKIPPED)


def progress(result: Outcome) -> str:
    return f"{result['case']} [{result['backend']}]: {result['outcome']} ({result['duration_s']:.1f}s)"


ESCAPE = Corpus(
    name="escape",
    summary="Run the escape corpus (tests/sandbox/escape/) in every backend this machine offers: every case "
    "that runs must be contained, or exposed only as stated.",
    load_cases=load_cases,
    harness=heal_in_each_backend,
    figures=figures,
    passed=passed,
    progress=progress,
    options=(
        option(
            "--backend",
            action="append",
            choices=ALL_BACKENDS,
            help=f"only these backends (repeatable; default: {', '.join(BACKENDS)}; {CONTROL} is a control "
            "where the tests run as root beside selfheal, which the corpus must see escape)",
        ),
        option(
            "--python",
            metavar="PATH",
            help="the local backends' test interpreter (default: this one if other users can run it, "
            "else a venv of the system's Python made for the run)",
        ),
        KEEP,
    ),
)
