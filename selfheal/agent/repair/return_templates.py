"""Return templates: a constant return replaced by a value the function computed.

TBar's "mutate return statement": `return None`, `return 0`, `return []`, `return ""`, `return False`
or a bare `return` in a function that computes something, replaced by a name in scope there (the
loop's variable first, then the latest locals, then the parameters) or, for an empty collection,
by the collection built from one such value (`return []` -> `return [item]`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, Mutation, short
from selfheal.agent.repair.scope import NON_NUMERIC_KINDS, Scope

MAX_RETURNS = 8  # per return statement
MAX_CONTAINERS = 3
# an empty literal -> the same collection holding one value, and the kinds that are already one
CONTAINERS = {"list": ("[{}]", "list"), "tuple": ("({},)", "list"), "set": ("{{{}}}", "set")}


def return_expressions(
    src: SourceFile, statement: ast.stmt, facts: FunctionFacts, scope: Scope
) -> Iterator[Mutation]:
    if not isinstance(statement, ast.Return) or facts.is_generator:
        return
    if not isinstance(facts.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    value = statement.value
    constant = _constant_kind(value)
    if constant is None:
        return
    current = src.segment(statement)
    span = src.span(statement)
    names = scope.latest_first(facts.params)
    made = 0
    for index, name in enumerate(names):
        if not _fits(constant, scope.kinds.get(name)):
            continue
        yield Mutation(
            "return-expression",
            1.0 if index < 3 else 0.7,
            (Edit(src.path, *span, f"return {name}"),),
            f"`{short(current)}` -> `return {name}`",
        )
        made += 1
        if made >= MAX_RETURNS:
            return
    if constant in CONTAINERS:
        pattern, kind = CONTAINERS[constant]
        for name in [n for n in names if scope.kinds.get(n) != kind][:MAX_CONTAINERS]:
            built = pattern.format(name)
            yield Mutation(
                "return-expression",
                0.8,
                (Edit(src.path, *span, f"return {built}"),),
                f"`{short(current)}` -> `return {built}`",
            )
            made += 1
            if made >= MAX_RETURNS:
                return


def _constant_kind(value: ast.expr | None) -> str | None:
    """What a constant return returns: "none", "number", "str", "bool", an empty collection's
    type; None when it returns a computed value."""
    if value is None:
        return "none"
    if isinstance(value, ast.Constant):
        if value.value is None:
            return "none"
        if isinstance(value.value, bool):
            return "bool"
        if isinstance(value.value, (int, float)):
            return "number"
        if isinstance(value.value, str):
            return "str"
        return None
    if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant):
        return "number" if isinstance(value.operand.value, (int, float)) else None
    if isinstance(value, ast.List) and not value.elts:
        return "list"
    if isinstance(value, ast.Tuple) and not value.elts:
        return "tuple"
    if isinstance(value, ast.Dict) and not value.keys:
        return "dict"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.args:
        return {"set": "set", "list": "list", "dict": "dict", "tuple": "tuple"}.get(value.func.id)
    return None


def _fits(constant: str, kind: str | None) -> bool:
    """May a name of `kind` stand where the function returned a constant of `constant`'s kind?"""
    if not kind or constant == "none":
        return True
    if constant == "number":
        return kind not in NON_NUMERIC_KINDS
    if constant in ("list", "tuple"):
        return kind in ("list", "iterable")
    return kind == constant
