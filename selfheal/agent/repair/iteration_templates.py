"""Iteration templates: a loop over part of its sequence, or over a sibling attribute.

TBar's and PAR's loop fixes: a `for` loop (or a comprehension) that should skip the first or the
last element (`for x in xs` -> `for x in xs[1:]` / `xs[:-1]`), and a loop over the wrong
collection of the same object (`for c in node.children` -> `for c in node.parents`), the other
attributes read off the class that defines the one iterated (its `self.x` stores and fields).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import ModuleFacts, Mutation, header_nodes, short
from selfheal.agent.repair.scope import Scope

MAX_ITERATIONS = 6  # per suspicious statement
MAX_SIBLING_ATTRIBUTES = 4
SLICES = (("[1:]", 1.0, "without its first element"), ("[:-1]", 0.8, "without its last element"))
UNSLICEABLE = ("set", "dict", "number", "bool")


def iterations(src: SourceFile, statement: ast.stmt, module: ModuleFacts, scope: Scope) -> Iterator[Mutation]:
    made = 0
    for iterable in _iterables(statement):
        for mutation in _over_part(src, iterable, scope):
            yield mutation
            made += 1
            if made >= MAX_ITERATIONS:
                return
        for mutation in _over_sibling(src, iterable, module):
            yield mutation
            made += 1
            if made >= MAX_ITERATIONS:
                return


def _iterables(statement: ast.stmt) -> list[ast.expr]:
    found: list[ast.expr] = []
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        found.append(statement.iter)
    for header in header_nodes(statement):
        for node in ast.walk(header):
            if isinstance(node, ast.comprehension):
                found.append(node.iter)
    return found


def _over_part(src: SourceFile, iterable: ast.expr, scope: Scope) -> Iterator[Mutation]:
    if not isinstance(iterable, (ast.Name, ast.Attribute)):
        return  # a call (`range(n)`, `zip(a, b)`) or a slice already: its bounds are other families'
    text = src.segment(iterable)
    if scope.kinds.get(text) in UNSLICEABLE:
        return
    for suffix, weight, what in SLICES:
        yield Mutation(
            "iteration",
            weight,
            (Edit(src.path, *src.span(iterable), text + suffix),),
            f"iterate over `{short(text)}` {what}: `{short(text + suffix)}`",
        )


def _over_sibling(src: SourceFile, iterable: ast.expr, module: ModuleFacts) -> Iterator[Mutation]:
    if not isinstance(iterable, ast.Attribute):
        return
    owner = src.segment(iterable.value)
    read_here = module.attributes.get(owner, set()) if isinstance(iterable.value, ast.Name) else set()
    siblings: list[str] = []
    for attributes in module.class_attributes:
        if iterable.attr not in attributes:
            continue
        at = attributes.index(iterable.attr)
        # nearest in the class's own order first, the next before the previous: related
        # collections are defined together
        order = sorted(attributes, key=lambda n: (abs(attributes.index(n) - at), attributes.index(n) < at))
        for name in order:
            # the attribute family already offers what this module reads through the same name
            if name != iterable.attr and name not in read_here and name not in siblings:
                siblings.append(name)
    start = src.span(iterable)[1] - len(iterable.attr.encode("utf-8"))
    for name in siblings[:MAX_SIBLING_ATTRIBUTES]:
        yield Mutation(
            "iteration",
            0.9,
            (Edit(src.path, start, src.span(iterable)[1], name),),
            f"iterate over `{owner}.{name}` instead of `{short(src.segment(iterable))}`",
        )
