"""What the error-directed repairs read at a crash site, whatever the exception: the nodes of the
crashing statement's own line(s), the names the module binds, and the names spelt almost like a
missing one."""

from __future__ import annotations

import ast
import builtins
import difflib
import re
from collections.abc import Iterator

from selfheal.agent.repair.edits import SourceFile
from selfheal.agent.repair.mutation import header_nodes

BUILTIN_NAMES = sorted(n for n in dir(builtins) if not n.startswith("_"))
QUOTED = re.compile(r"'([\w.]+)'")
MAX_SPELLINGS = 4
SPELLING_CUTOFF = 0.6


def spellings(missing: str, known: list[str], suggestion: str) -> list[tuple[str, float]]:
    ranked: list[tuple[str, float]] = []
    if suggestion and suggestion != missing and "." not in suggestion:
        ranked.append((suggestion, 1.0))
    unique = list(dict.fromkeys(known))
    for other in difflib.get_close_matches(missing, unique, n=MAX_SPELLINGS, cutoff=SPELLING_CUTOFF):
        if other not in (r[0] for r in ranked):
            ranked.append((other, difflib.SequenceMatcher(a=missing, b=other).ratio()))
    return ranked[:MAX_SPELLINGS]


def module_bindings(src: SourceFile) -> list[str]:
    """Names the module binds at its top level: definitions, classes, imports, assignments."""
    names: list[str] = []
    for node in src.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return names


def header_walk(statement: ast.stmt) -> Iterator[ast.AST]:
    for header in header_nodes(statement):
        yield from ast.walk(header)
