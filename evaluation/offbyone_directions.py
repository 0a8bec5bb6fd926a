"""Count `x + 1` against `x - 1` at each site `operand_offsets` moves, in a corpus of correct code.

    python evaluation/offbyone_directions.py /usr/lib/python3.11 .venv/lib/python3.11/site-packages

x is a name, attribute or call result, or a sum of them with no constant term. The sites are
those of selfheal/agent/repair/operand_offsets.py: an operand of `*`, `/`, `//`, `%` or `**`
(not `%` formatting text); a positional argument (a name apart from the rest), a keyword's value,
of any call but `range` and `len`; a sum elsewhere (not an index, slice bound or comparison
operand, which other families move). Files under a `test` or `tests` folder are left out. Printed
per site: plain `x`, `x + 1`, `x - 1`. If each correct `x ± 1` is as likely as any other to have
been written without its `± 1`, the counts say which direction a fix at that site more often
takes; `DIRECTION_COUNTS` holds the figures of CPython 3.11's standard library and the packages
this project installs (7,446 files).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ATOMS = (ast.Name, ast.Attribute, ast.Call)
MULTIPLICATIVE = {ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}


def is_sum(node: ast.AST | None) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))


def terms(node: ast.expr) -> list[ast.expr]:
    return [*terms(node.left), *terms(node.right)] if is_sum(node) else [node]


def textual(node: ast.AST) -> bool:
    return any(
        isinstance(part, ast.JoinedStr)
        or (isinstance(part, ast.Constant) and isinstance(part.value, (str, bytes)))
        for part in ast.walk(node)
    )


def numeric_constant(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def shape(node: ast.expr) -> str | None:
    """ "x", "+" or "-" for `x`, `x + 1`, `x - 1`; None for anything else."""
    if isinstance(node, ATOMS):
        return "x"
    if not is_sum(node) or textual(node):
        return None
    one = isinstance(node.right, ast.Constant) and type(node.right.value) is int and node.right.value == 1
    rest = terms(node.left) if one else terms(node)
    if any(numeric_constant(t) for t in rest) or not any(isinstance(t, ATOMS) for t in rest):
        return None
    if not one:
        return "x"
    return "+" if isinstance(node.op, ast.Add) else "-"


def site(node: ast.expr, shape_found: str, parent: ast.AST | None) -> str | None:
    if isinstance(parent, ast.BinOp) and type(parent.op) in MULTIPLICATIVE:
        if isinstance(parent.op, ast.Mod) and textual(parent.left):
            return None
        return MULTIPLICATIVE[type(parent.op)]
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        name = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        if name in (None, "range", "len"):
            return None
        moved = node if shape_found == "x" else node.left
        return "argument name" if isinstance(moved, ast.Name) else "argument"
    if isinstance(parent, ast.keyword):
        return "keyword"
    if isinstance(parent, (ast.Subscript, ast.Slice, ast.Compare)):
        return None
    lone = not is_sum(node) or (shape_found != "x" and not is_sum(node.left))
    return None if lone else "sum"


def count(roots: list[str]) -> tuple[int, dict[str, Counter]]:
    found: dict[str, Counter] = {}
    files = 0
    for root in roots:
        for path in sorted(Path(root).rglob("*.py")):
            if {"test", "tests"} & set(path.parts):
                continue
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            files += 1
            parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
            for node in ast.walk(tree):
                parent = parents.get(node)
                if not isinstance(node, ast.expr) or is_sum(parent):
                    continue
                shape_found = shape(node)
                where = site(node, shape_found, parent) if shape_found else None
                if where is not None:
                    found.setdefault(where, Counter())[shape_found] += 1
    return files, found


def main(roots: list[str]) -> None:
    files, found = count(roots)
    print(f"{files} files")
    for where, counts in sorted(found.items()):
        print(f"{where:14s} x: {counts['x']:7d}   x + 1: {counts['+']:5d}   x - 1: {counts['-']:5d}")


if __name__ == "__main__":
    main(sys.argv[1:])
