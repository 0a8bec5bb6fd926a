"""`python -m evaluation.hostile_answers`: heal every hostile-answer case (scripted model roles, the
local sandbox, the real loop and verdict) and print, per family, the cases tried, the decisions
that were correct and the crashes; or, with --show DIR, the figures of results saved earlier (the
test suite saves them where SELFHEAL_ANSWERS_RESULTS points).

Exit codes: 0 every decision correct and no crash, 1 otherwise, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evaluation.hostile_answers.cases import load_cases
from evaluation.hostile_answers.figures import load_results, render, save_result
from evaluation.hostile_answers.harness import run_case


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.hostile_answers", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--family", action="append", metavar="NAME", help="only these families (repeatable)")
    parser.add_argument("--case", action="append", metavar="ID", help="only these cases (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="heals at once (default 2)")
    parser.add_argument("--python", metavar="PATH", help="the sandbox's test interpreter (default: this one)")
    parser.add_argument("--results", type=Path, metavar="DIR", help="also save each case's result here")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--keep", action="store_true", help="keep each case's folder (repository, outputs)")
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
        return 0 if all(r["correct"] and not r["crashed"] for r in results) else 1
    chosen = set(args.case or ()) | set(args.family or ())
    cases = [c for c in load_cases() if not chosen or c.id in chosen or c.family in chosen]
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    started = time.monotonic()
    results = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case, case, None, args.python, args.keep) for case in cases]
        for future in futures:
            result = future.result().as_dict()
            if args.results:
                save_result(args.results, result)
            mark = "correct" if result["correct"] else "WRONG"
            print(f"{result['case']}: {mark}, exit {result['exit_code']} ({result['duration_s']:.1f}s)",
                  file=sys.stderr, flush=True)  # fmt: skip
            results.append(result)
    wall = time.monotonic() - started
    print(render(results, markdown=args.markdown), end="")
    print(f"\nwall time {wall:.0f} s for {len(cases)} heals with {args.jobs} at once")
    return 0 if all(r["correct"] and not r["crashed"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
