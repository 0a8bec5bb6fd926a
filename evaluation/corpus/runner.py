"""One corpus run from the command line, whichever corpus.

A corpus plugs in with a `Corpus`: its cases, its harness (cases in; outcomes out, as they come, in
the cases' order), its figures (how outcomes are kept, read back and printed) and what makes an
outcome pass. `main(corpora, argv)` is the command line over any list of them:

    CORPUS [--case ID]... [--family NAME]... [--jobs N] [--results DIR] [--json FILE] [--markdown]
           [--show DIR|FILE] [the corpus's own options]

It prints a line per outcome on stderr, the figures on stdout, then the wall time. With --show it
runs nothing and prints the figures of results saved earlier (a --results folder, or a --json file).

Exit codes: 0 every outcome passed, 1 one did not (or the harness gave none), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from evaluation.corpus.cases import Case

Outcome = dict[str, Any]
# the cases chosen, and the parsed command line (the common options and the corpus's own)
Harness = Callable[[list[Any], argparse.Namespace], Iterable[Outcome]]
T = TypeVar("T")


class Figures(Protocol):
    """A corpus's figures module."""

    def save_result(self, folder: Path, result: Outcome) -> None: ...

    def load_results(self, folder: Path) -> list[Outcome]: ...

    def render(self, results: list[Outcome], *, markdown: bool = False) -> str: ...


@dataclass(frozen=True)
class Option:
    """An option of one corpus's own: argparse's add_argument(*flags, **settings)."""

    flags: tuple[str, ...]
    settings: dict[str, Any]


def option(*flags: str, **settings: Any) -> Option:
    return Option(flags, settings)


KEEP = option("--keep", action="store_true", help="keep each case's folder (repository, outputs)")


@dataclass(frozen=True)
class Corpus:
    name: str  # the command line's word for it
    summary: str  # one sentence for --help
    load_cases: Callable[[], Sequence[Case]]
    harness: Harness
    figures: Figures
    passed: Callable[[Outcome], bool]
    progress: Callable[[Outcome], str]  # the line on stderr as an outcome comes in
    unit: str = "heals"  # what one outcome is, for the wall time line
    options: tuple[Option, ...] = ()


def one_by_one(run_one: Callable[[Any, argparse.Namespace], Outcome]) -> Harness:
    """The harness of a corpus whose cases run one at a time: --jobs of them at once."""

    def harness(cases: list[Any], options: argparse.Namespace) -> Iterator[Outcome]:
        return at_once(lambda case: run_one(case, options), cases, options.jobs)

    return harness


def at_once(run: Callable[[T], Outcome], items: Iterable[T], jobs: int) -> Iterator[Outcome]:
    """`run` over `items`, `jobs` at once; the outcomes in the items' order, each when it is done."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        yield from pool.map(run, items)


@contextmanager
def scratch(prefix: str, *, keep: bool, under: str | None = None) -> Iterator[Path]:
    """A folder for a run's cases, removed at the end unless kept."""
    work = Path(tempfile.mkdtemp(prefix=prefix, dir=under))
    # as root, the local sandbox runs the tests as a uid of their own, which must reach what is made here
    work.chmod(0o755)
    try:
        yield work
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def build_parser(corpora: Sequence[Corpus]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.corpora", description="Run one corpus and print its figures."
    )
    choices = parser.add_subparsers(dest="corpus", required=True, metavar="CORPUS")
    for corpus in corpora:
        sub = choices.add_parser(corpus.name, help=corpus.summary, description=corpus.summary)
        sub.add_argument("--case", action="append", metavar="ID", help="only these cases (repeatable)")
        sub.add_argument("--family", action="append", metavar="NAME", help="only these families (repeatable)")
        sub.add_argument("--jobs", type=int, default=2, help=f"{corpus.unit} at once (default 2)")
        sub.add_argument("--results", type=Path, metavar="DIR", help="also save each outcome here")
        sub.add_argument("--json", type=Path, metavar="FILE", help="write every outcome to FILE")
        sub.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
        saved = "print the figures of results saved earlier (--results, --json), run nothing"
        sub.add_argument("--show", type=Path, metavar="DIR|FILE", help=saved)
        for extra in corpus.options:
            sub.add_argument(*extra.flags, **extra.settings)
    return parser


def main(corpora: Sequence[Corpus], argv: list[str] | None = None) -> int:
    args = build_parser(corpora).parse_args(argv)
    corpus = next(c for c in corpora if c.name == args.corpus)
    if args.show:
        return show(corpus, args.show, markdown=args.markdown)
    chosen = set(args.case or ()) | set(args.family or ())
    cases = [c for c in corpus.load_cases() if not chosen or c.id in chosen or c.family in chosen]
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    started = time.monotonic()
    results = []
    for result in corpus.harness(cases, args):
        if args.results:
            corpus.figures.save_result(args.results, result)
        print(corpus.progress(result), file=sys.stderr, flush=True)
        results.append(result)
    wall = time.monotonic() - started
    if not results:
        print("no results", file=sys.stderr)
        return 1
    print(corpus.figures.render(results, markdown=args.markdown), end="")
    print(f"\nwall time {wall:.0f} s for {len(results)} {corpus.unit} with {args.jobs} at once")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return exit_code(corpus, results)


def show(corpus: Corpus, saved: Path, *, markdown: bool = False) -> int:
    if saved.is_file():
        results = json.loads(saved.read_text(encoding="utf-8"))
    else:
        results = corpus.figures.load_results(saved)
    if not results:
        print(f"no results under {saved}", file=sys.stderr)
        return 2
    print(corpus.figures.render(results, markdown=markdown), end="")
    return exit_code(corpus, results)


def exit_code(corpus: Corpus, results: list[Outcome]) -> int:
    return 0 if all(corpus.passed(r) for r in results) else 1
