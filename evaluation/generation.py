"""Count the candidates the search generates, per family, around each benchmark bug.

    python -m evaluation.generation [--realbugs] [--json OUT]

For every task (the own tasks of evaluation/tasks, or with --realbugs the built real bugs under
$SELFHEAL_REALBUGS_CACHE), every statement of the functions the reference fix's hunks overlap
(their context lines included) gets the operators and fix templates of the search
(`statement_mutations` and `template_mutations`; expression synthesis is left out: it depends on
the failing tests' values).
Each mutation is applied and compiled as the search does (the top-level statements it touches);
those that compile and differ from the statement's earlier candidates are counted, per
family, with the time generation took. Run it with one engine's `selfheal` first on the import
path and then another's to compare what a change of the families costs in candidates.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

from selfheal.agent.repair.edits import SourceFile, TopLevelSpans
from selfheal.agent.repair.mutation import FunctionFacts, Hints, ModuleFacts, enclosing_function, parent_map
from selfheal.agent.repair.operators import statement_mutations
from selfheal.agent.repair.search import changed_text
from selfheal.agent.repair.templates import template_mutations

OWN_TASKS = Path(__file__).parent / "tasks"


def realbugs_tasks() -> Path:
    cache = os.environ.get("SELFHEAL_REALBUGS_CACHE") or str(Path.home() / ".cache/selfheal/realbugs")
    return Path(cache) / "tasks"


def changed_lines(task: Path) -> dict[Path, set[int]]:
    """The Python files the reference fix changes, inside the task's repository, with the lines
    of the buggy file its hunks cover."""
    diff = (task / "solution.diff").read_text(encoding="utf-8")
    found: dict[Path, set[int]] = {}
    current: Path | None = None
    # `diff --git a/x b/x` headers (git) or bare `+++ b/x` lines (diff -u): `+++ b/` names the file
    for line in diff.splitlines():
        if line.startswith("+++ b/"):
            name = line[len("+++ b/") :].split("\t")[0]
            path = task / "repo" / name
            current = path if name.endswith(".py") and path.is_file() else None
            if current is not None:
                found.setdefault(current, set())
        elif line.startswith("@@ ") and current is not None:
            start, _, length = line.split()[1][1:].partition(",")
            found[current] |= set(range(int(start), int(start) + int(length or 1)))
    return found


def count_file(path: Path, lines: set[int], families: Counter) -> int:
    text = path.read_text(encoding="utf-8")
    try:
        src = SourceFile(path.name, text)
    except SyntaxError:
        return 0
    parents = parent_map(src.tree)
    module = ModuleFacts(src)
    spans = TopLevelSpans({path.name: text})
    statements = 0
    functions = [
        f
        for f in ast.walk(src.tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        and lines & set(range(f.lineno, (f.end_lineno or f.lineno) + 1))
    ]
    chosen = {id(f) for f in functions}
    for statement in ast.walk(src.tree):
        # a statement of a nested function counts only when the fix changes that function too
        if not isinstance(statement, ast.stmt) or id(enclosing_function(statement, parents)) not in chosen:
            continue
        statements += 1
        facts = FunctionFacts(src, enclosing_function(statement, parents))
        seen: set[str] = set()
        for mutation in (
            *statement_mutations(src, statement, parents, facts, module, Hints()),
            *template_mutations(src, statement, parents, facts, module),
        ):
            try:  # as the search does: the top-level statements the edit touches, compiled
                changed = changed_text(spans, {path.name: text}, mutation.edits)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for part in changed.values():
                        compile(part, path.name, "exec")
            except (SyntaxError, ValueError):
                continue
            key = repr(sorted(changed.items()))
            if key in seen:
                continue
            seen.add(key)
            families[mutation.family] += 1
    return statements


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--realbugs", action="store_true", help="the built real bugs, not the own tasks")
    parser.add_argument("--json", type=Path, help="write the counts here")
    args = parser.parse_args(argv)
    root = realbugs_tasks() if args.realbugs else OWN_TASKS
    tasks = sorted(p for p in root.iterdir() if (p / "solution.diff").is_file())
    families: Counter = Counter()
    statements = 0
    started = time.perf_counter()
    for task in tasks:
        for path, lines in changed_lines(task).items():
            statements += count_file(path, lines, families)
    seconds = time.perf_counter() - started
    total = sum(families.values())
    import selfheal

    print(f"engine: {Path(selfheal.__file__).parent.parent}")
    print(f"{len(tasks)} tasks, {statements} statements in the functions their fixes change")
    print(f"{total} candidates that compile ({total / max(statements, 1):.1f} a statement), {seconds:.1f} s")
    for family, count in families.most_common():
        print(f"  {family:24} {count:7}")
    if args.json:
        counts = {
            "tasks": len(tasks),
            "statements": statements,
            "candidates": total,
            "seconds": round(seconds, 1),
            "families": dict(families.most_common()),
        }
        args.json.write_text(json.dumps(counts, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
