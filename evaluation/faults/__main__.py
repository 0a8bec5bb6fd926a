"""`python -m evaluation.faults`: run the fault cases (tests/action/faults/) and print, per family,
the cases run, held (every requirement) and failed (which requirement); or, with --show DIR, the
figures of results saved earlier (the test suite saves them where SELFHEAL_FAULTS_RESULTS points).

Exit codes: 0 every case held, 1 a case failed a requirement, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evaluation.faults.cases import load_cases
from evaluation.faults.figures import load_results, render, save_result
from evaluation.faults.harness import run_case


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluation.faults", description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", action="append", metavar="ID", help="only this case (repeatable)")
    parser.add_argument("--family", action="append", metavar="NAME", help="only these families (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="cases at once (default 2)")
    parser.add_argument("--results", type=Path, metavar="DIR", help="also save each case's result here")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every result to FILE")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--keep", action="store_true", help="keep each case's folder")
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
        return 0 if all(r["held"] for r in results) else 1
    chosen = set(args.case or ()) | set(args.family or ())
    cases = [c for c in load_cases() if not chosen or c.id in chosen or c.family in chosen]
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    started = time.monotonic()
    results = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for result in pool.map(lambda case: run_case(case, keep=args.keep).as_dict(), cases):
            if args.results:
                save_result(args.results, result)
            verdict = "held" if result["held"] else "FAILED " + ", ".join(result["failed"])
            print(f"{result['case']} [{result['family']}]: {verdict} ({result['duration_s']:.1f}s)",
                  file=sys.stderr, flush=True)  # fmt: skip
            results.append(result)
    wall = time.monotonic() - started
    print(render(results, markdown=args.markdown), end="")
    print(f"\nwall time {wall:.0f} s for {len(cases)} cases with {args.jobs} at once")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0 if all(r["held"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
