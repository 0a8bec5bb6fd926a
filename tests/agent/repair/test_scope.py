"""The scope reader: which names a synthesized expression may use at a line, and their loose kinds."""

from __future__ import annotations

import textwrap

from selfheal.agent.repair.edits import SourceFile
from selfheal.agent.repair.mutation import (
    FunctionFacts,
    ModuleFacts,
    enclosing_function,
    parent_map,
    statement_at,
)
from selfheal.agent.repair.scope import Scope, scope_at

SOURCE = textwrap.dedent("""
    LIMIT = 100
    NAMES = {"a", "b"}


    def helper():
        return 1


    class Basket:
        def __init__(self, owner):
            self.owner = owner
            self.items = []
            self.cap = LIMIT
            self.closed = False

        def add_all(self, rows, scale: int):
            total = 0
            seen = set()
            for row in rows:
                code = row.code.strip()
                squares = [c * c for c in range(scale)]
                if code in seen:
                    continue
                total += row.price
                self.items.append(row)
            later = len(self.items)
            return total
""").lstrip()


def scope_of(needle: str) -> Scope:
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    line = next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if needle in ln)
    statement = statement_at(src, line, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    return scope_at(src, statement, parents, facts, ModuleFacts(src))


def test_names_bound_before_the_line_then_self_attributes_then_module_constants():
    scope = scope_of("total += row.price")
    # `later` is bound after the line and `c` only inside a comprehension: neither is in scope
    assert scope.names == (
        "rows",
        "scale",
        "total",
        "seen",
        "row",
        "code",
        "squares",
        "self.items",
        "self.owner",
        "self.cap",
        "self.closed",
        "LIMIT",
        "NAMES",
    )
    assert scope.local_names == (
        "rows",
        "scale",
        "total",
        "seen",
        "row",
        "code",
        "squares",
        "self.items",
        "self.owner",
        "self.cap",
        "self.closed",
    )
    assert scope.loop_targets == ("row",)
    assert scope.accumulators == ("total",)
    assert scope.membership == (("code", "seen"),)


def test_kinds_come_from_bindings_annotations_and_use():
    kinds = scope_of("total += row.price").kinds
    assert kinds == {
        "scale": "number",
        "total": "number",
        "seen": "set",
        "squares": "list",
        "rows": "iterable",
        "row": "object",
        "self.items": "list",
        "self.closed": "bool",  # what the class assigns it: a flag, never added to a number
        "LIMIT": "number",
        "NAMES": "set",
    }


def test_sub_expressions_of_the_function_shallowest_first_without_comprehensions_or_called_methods():
    # `range(scale)` is inside a comprehension, `self.items.append` is a method being called
    assert scope_of("total += row.price").expressions == (
        "len(self.items)",
        "row.code.strip()",
        "row.price",
        "row.code",
    )
