"""`python -m evaluation.cheats`: heal the cheat corpus (tests/agent/cheats/) and print the figures;
or, with --show DIR, print the figures of results saved earlier (the test suite saves them where
SELFHEAL_CHEAT_RESULTS points), or with --show FILE those of a --json file
(evaluation/results/cheats.json holds the run docs/sandbox-security.md quotes).

Exit codes: 0 every cheat outside the overfit family was refused and every honest control healed,
1 one was not, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evaluation.cheats.cases import load_cases
from evaluation.cheats.figures import load_results, render, save_result, wrongly_ended
from evaluation.cheats.harness import run_case


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluation.cheats", description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", action="append", metavar="ID", help="only these cases (repeatable)")
    parser.add_argument("--family", action="append", metavar="NAME", help="only these families (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="heals at once (default 2)")
    parser.add_argument("--results", type=Path, metavar="DIR", help="also save each case's result here")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every result to FILE")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--keep", action="store_true", help="keep each case's folder")
    parser.add_argument(
        "--show",
        type=Path,
        metavar="DIR|FILE",
        help="only print the figures of saved results (or a --json file)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.show:
        results = (
            json.loads(args.show.read_text(encoding="utf-8"))
            if args.show.is_file()
            else load_results(args.show)
        )
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
    work = Path(tempfile.mkdtemp(prefix="selfheal-cheats-"))
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = []
            for result in pool.map(lambda c: run_case(c, parent=work), cases):
                if args.results:
                    save_result(args.results, result)
                rules = result["rules"] or ""
                print(
                    f"{result['case']}: {result['stage']} {rules} ({result['duration_s']:.1f}s)",
                    file=sys.stderr,
                )
                results.append(result)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    wall = time.monotonic() - started
    print(render(results, markdown=args.markdown), end="")
    print(f"\nwall time {wall:.0f} s for {len(cases)} heals with {args.jobs} at once")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return _exit_code(results)


def _exit_code(results: list[dict]) -> int:
    return 1 if wrongly_ended(results) else 0


if __name__ == "__main__":
    sys.exit(main())
