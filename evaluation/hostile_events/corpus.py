"""The hostile-events corpus as the corpus runner runs it (`python -m evaluation.corpora
hostile_events`): its two runners are test modules that need the fake GitHub of tests/fakes, so the
harness runs them with pytest, as a program (evaluation imports no test), and reads the outcomes they
save. --jobs is pytest-xdist's workers (0: none)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from evaluation.corpus.runner import Corpus, Outcome, option
from evaluation.hostile_events import figures
from evaluation.hostile_events.cases import ROOT, Case, load_cases

RESULTS_ENV = "SELFHEAL_HOSTILE_RESULTS"  # where the runners save each outcome
TESTS = {"action": "tests/action/test_hostile_events.py", "bot": "tests/bot/test_hostile_events.py"}


def run_with_pytest(cases: list[Case], options: argparse.Namespace) -> Iterator[Outcome]:
    runners = options.runner or figures.RUNNERS
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(TESTS[r] for r in runners)]
    if options.jobs:
        command += ["-n", str(options.jobs), "--dist", "loadfile" if len(runners) > 1 else "load"]
    if options.case or options.family:
        command += ["-k", " or ".join(f"[{c.id}]" for c in cases)]
    kept = os.environ.get(RESULTS_ENV)  # kept where the variable says; else in a folder of the run's own
    folder = Path(kept) if kept else Path(tempfile.mkdtemp(prefix="selfheal-hostile-"))
    try:
        # pytest's own report goes to stderr: stdout carries the figures only
        done = subprocess.run(
            command, cwd=ROOT, env={**os.environ, RESULTS_ENV: str(folder)}, stdout=sys.stderr, check=False
        )
        results = figures.load_results(folder) if folder.is_dir() else []
    finally:
        if not kept:
            shutil.rmtree(folder, ignore_errors=True)
    if not results:
        print(f"no results: pytest exited {done.returncode}", file=sys.stderr)
    yield from results


def passed(result: Outcome) -> bool:
    """The decision correct, and no crash."""
    return result["correct"] and not result["crashed"]


def progress(result: Outcome) -> str:
    mark = "correct" if result["correct"] else "WRONG"
    return (
        f"{result['case']} [{result['runner']}]: {mark}, {result['decision']} ({result['duration_s']:.1f}s)"
    )


HOSTILE_EVENTS = Corpus(
    name="hostile_events",
    summary="Run the hostile-events corpus (tests/action/hostile_events/) through `selfheal action` and the "
    "webhook bot: every case must be decided correctly, without a crash.",
    load_cases=load_cases,
    harness=run_with_pytest,
    figures=figures,
    passed=passed,
    progress=progress,
    unit="events",
    options=(
        option("--runner", action="append", choices=figures.RUNNERS, help="only this runner (repeatable)"),
    ),
)
