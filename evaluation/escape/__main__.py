"""`python -m evaluation.escape`: run the escape corpus in every backend this machine offers and
print the figures; or, with --show DIR, print the figures of results saved earlier (the test suite
saves them where SELFHEAL_ESCAPE_RESULTS points).

Exit codes: 0 every case that ran was contained (or exposed as stated), 1 a case escaped or its
attack never reported, 2 bad arguments.
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

from evaluation.escape.cases import load_cases
from evaluation.escape.figures import load_results, render, save_result
from evaluation.escape.harness import (
    ALL_BACKENDS,
    BACKENDS,
    CONTAINED,
    CONTROL,
    EXPOSED,
    SKIPPED,
    available_backends,
    run_case,
    skipped,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluation.escape", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--backend",
        action="append",
        choices=ALL_BACKENDS,
        help=f"only these backends (repeatable; default: {', '.join(BACKENDS)}; {CONTROL} is a control where "
        "the tests run as root beside selfheal, which the corpus must see escape)",
    )
    parser.add_argument(
        "--case",
        action="append",
        metavar="ID",
        help="only this case, or these (repeatable; with --family: either)",
    )
    parser.add_argument("--family", action="append", metavar="NAME", help="only these families (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="heals at once (default 2)")
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="the local backends' test interpreter (default: this one if other users can run it, "
        "else a venv of the system's Python made for the run)",
    )
    parser.add_argument("--results", type=Path, metavar="DIR", help="also save each case's result here")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every result to FILE")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
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
        return _exit_code(results)
    chosen = set(args.case or ()) | set(args.family or ())
    cases = [c for c in load_cases() if not chosen or c.id in chosen or c.family in chosen]
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    work = Path(
        tempfile.mkdtemp(prefix="selfheal-escape-", dir="/var/tmp" if Path("/var/tmp").is_dir() else None)
    )
    work.chmod(0o755)
    try:
        python, why = (args.python, "") if args.python else _open_python(work)
        reasons = available_backends(python, why)
        backends = args.backend or list(BACKENDS)
        started = time.monotonic()
        jobs = [(case, backend) for case in cases for backend in backends]
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [
                pool.submit(_one, case, backend, reasons[backend], python, work, args.keep)
                for case, backend in jobs
            ]
            results = []
            for future in futures:
                result = future.result()
                if args.results:
                    save_result(args.results, result)
                case, backend, outcome = result["case"], result["backend"], result["outcome"]
                print(
                    f"{case} [{backend}]: {outcome} ({result['duration_s']:.1f}s)",
                    file=sys.stderr,
                    flush=True,
                )
                results.append(result)
        wall = time.monotonic() - started
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(render(results, markdown=args.markdown), end="")
    print(f"\nwall time {wall:.0f} s for {len(jobs)} heals with {args.jobs} at once")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return _exit_code(results)


def _open_python(work: Path) -> tuple[str | None, str]:
    from evaluation.escape.harness import open_interpreter

    return open_interpreter(work)


def _one(case, backend: str, reason: str, python: str | None, work: Path, keep: bool) -> dict:
    if reason:
        return skipped(case, backend, reason).as_dict()
    return run_case(case, backend, python=python, parent=work, keep=keep).as_dict()


def _exit_code(results: list[dict]) -> int:
    return 0 if all(r["outcome"] in (CONTAINED, EXPOSED, SKIPPED) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
