"""`python -m evaluation.hostile_events`: run the hostile-events corpus through `selfheal action` and
the webhook bot (the two pytest runners, as a program) and print the figures per family; or, with
--show DIR, print the figures of results saved earlier (SELFHEAL_HOSTILE_RESULTS=DIR keeps them).

Exit codes: 0 every case decided correctly without a crash, 1 otherwise, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evaluation.hostile_events.cases import ROOT, load_cases
from evaluation.hostile_events.figures import RUNNERS, load_results, render

RESULTS_ENV = "SELFHEAL_HOSTILE_RESULTS"
TESTS = {"action": "tests/action/test_hostile_events.py", "bot": "tests/bot/test_hostile_events.py"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.hostile_events", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--runner", action="append", choices=RUNNERS, help="only this runner (repeatable)")
    parser.add_argument("--family", action="append", metavar="NAME", help="only these families")
    parser.add_argument("--case", action="append", metavar="ID", help="only these cases")
    parser.add_argument("--jobs", type=int, default=2, help="pytest-xdist workers (default 2; 0: none)")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--show", type=Path, metavar="DIR", help="only print the figures of saved results")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.show:
        results = load_results(args.show)
        if not results:
            print(f"no results under {args.show}", file=sys.stderr)
            return 2
        print(render(results, markdown=args.markdown), end="")
        return _exit_code(results)
    chosen = set(args.case or ()) | set(args.family or ())
    cases = [c for c in load_cases() if not chosen or c.id in chosen or c.family in chosen]
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    kept = os.environ.get(RESULTS_ENV)  # where to keep the results (for --show); else a temporary folder
    folder = Path(kept) if kept else Path(tempfile.mkdtemp(prefix="selfheal-hostile-"))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [TESTS[r] for r in args.runner or RUNNERS]
    if args.jobs:
        command += ["-n", str(args.jobs), "--dist", "loadfile" if len(args.runner or RUNNERS) > 1 else "load"]
    if chosen:
        command += ["-k", " or ".join(f"[{c.id}]" for c in cases)]
    started = time.monotonic()
    try:
        # pytest's own report goes to stderr: stdout carries the figures only
        done = subprocess.run(
            command, cwd=ROOT, env={**os.environ, RESULTS_ENV: str(folder)}, stdout=sys.stderr, check=False
        )
        results = load_results(folder) if folder.is_dir() else []
    finally:
        if not kept:
            shutil.rmtree(folder, ignore_errors=True)
    wall = time.monotonic() - started
    if not results:
        print(f"no results: pytest exited {done.returncode}", file=sys.stderr)
        return 1
    print(render(results, markdown=args.markdown), end="")
    print(f"\nwall time {wall:.0f} s for {len(results)} events")
    return _exit_code(results)


def _exit_code(results: list[dict]) -> int:
    return 0 if all(r["correct"] and not r["crashed"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
