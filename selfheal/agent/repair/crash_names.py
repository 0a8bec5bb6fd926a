"""Error-directed repairs of a name or attribute that does not exist (`NameError`,
`UnboundLocalError`, `AttributeError` on an object that is not None): the name replaced by an
in-scope name of almost the same spelling (difflib), or the misspelt binding renamed to the name
that is read; the attribute by spelling."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.crash_site import BUILTIN_NAMES, QUOTED, header_walk, module_bindings, spellings
from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, Mutation


def names_by_spelling(
    src: SourceFile, statement: ast.stmt, facts: FunctionFacts, crash: Crash
) -> Iterator[Mutation]:
    quoted = QUOTED.search(crash.message)
    if quoted is None:
        return
    missing = quoted.group(1)
    reads = [n for n in header_walk(statement) if isinstance(n, ast.Name) and n.id == missing]
    known = [n for n in [*facts.scope_names, *module_bindings(src), *BUILTIN_NAMES] if n != missing]
    for other, weight in spellings(missing, known, crash.suggestion):
        if reads:
            yield Mutation(
                "crash-name",
                weight,
                tuple(Edit(src.path, *src.span(n), other) for n in reads),
                f"`{missing}` -> `{other}` (in scope, spelt almost the same)",
            )
        binds = _bindings_of(facts, other)
        if other in facts.locals and binds:
            yield Mutation(
                "crash-name",
                weight * 0.9,
                tuple(Edit(src.path, *src.span(n), missing) for n in binds),
                f"the binding `{other}` renamed to `{missing}`, the name that is read",
            )


def attributes_by_spelling(src: SourceFile, statement: ast.stmt, crash: Crash) -> Iterator[Mutation]:
    match = re.search(r"has no attribute '(\w+)'", crash.message)
    if match is None:
        return
    missing = match.group(1)
    nodes = [n for n in header_walk(statement) if isinstance(n, ast.Attribute) and n.attr == missing]
    known = sorted({
        n.attr for n in ast.walk(src.tree) if isinstance(n, ast.Attribute) and n.attr != missing
    } | {
        n.name for n in ast.walk(src.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    })  # fmt: skip
    for other, weight in spellings(missing, known, crash.suggestion):
        edits = tuple(
            Edit(src.path, src.span(n)[1] - len(missing.encode()), src.span(n)[1], other) for n in nodes
        )
        if edits:
            yield Mutation("crash-name", weight, edits, f"attribute `.{missing}` -> `.{other}`")


def _bindings_of(facts: FunctionFacts, name: str) -> list[ast.Name]:
    root = facts.function
    if root is None:
        return []
    return [
        n for n in ast.walk(root) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
    ]
