"""Error-directed repairs of a missing key or index.

- `KeyError`: `d[k]` -> `d.get(k, default)`, `d[k] += v` -> `d[k] = d.get(k, 0) + v`,
  `d[k].append(v)` -> `d.setdefault(k, []).append(v)`, `pop(k)` -> `pop(k, None)`;
- `IndexError`: a bound (`a[i] if i < len(a) else default`, the index clamped, the loop's range
  one shorter).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.crash_site import header_walk
from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, Mutation, called_name, short

DEFAULTS = ("None", "0", '""', "[]")
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitOr: "|", ast.Div: "/"}


def missing_keys(src: SourceFile, statement: ast.stmt, parents, crash: Crash) -> Iterator[Mutation]:
    path = src.path
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Subscript):
        target = statement.target
        container, key = src.segment(target.value), src.segment(target.slice)
        op = _OPERATORS.get(type(statement.op))
        if op:
            for default in ("0", '""'):
                value = f"{container}.get({key}, {default}) {op} {src.segment(statement.value)}"
                text = f"{src.segment(target)} = {value}"
                yield Mutation(
                    "crash-bound",
                    1.0 if default == "0" else 0.8,
                    (Edit(path, *src.span(statement), text),),
                    f"`{short(src.segment(statement))}` starts `{container}[{short(key)}]` at {default}",
                )
    if isinstance(statement, ast.Delete):
        for target in statement.targets:
            if isinstance(target, ast.Subscript):
                text = f"{src.segment(target.value)}.pop({src.segment(target.slice)}, None)"
                yield Mutation(
                    "crash-bound", 1.0, (Edit(path, *src.span(statement), text),), f"`del` -> `{text}`"
                )
    for node in header_walk(statement):
        if _is_pop(node) and len(node.args) == 1 and not node.keywords:
            end = src.span(node)[1] - 1
            yield Mutation(
                "crash-bound", 0.9, (Edit(path, end, end, ", None"),), "`pop(k)` -> `pop(k, None)`"
            )
        if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
            continue
        if isinstance(node.slice, ast.Slice):
            continue
        container, key = src.segment(node.value), src.segment(node.slice)
        constant = isinstance(node.slice, ast.Constant)
        if constant and repr(node.slice.value) != crash.message:
            continue  # a constant key the message does not name is not the missing one
        weight = 1.0 if constant else 0.85
        method = _method_on(node, parents)
        if method in ("append", "extend", "add", "update", "insert"):
            empty = "set()" if method == "add" else "{}" if method == "update" else "[]"
            text = f"{container}.setdefault({key}, {empty})"
            yield Mutation(
                "crash-bound", weight, (Edit(path, *src.span(node), text),),
                f"`{short(src.segment(node))}` -> `{short(text)}`",
            )  # fmt: skip
        for rank, default in enumerate(DEFAULTS):
            text = f"{container}.get({key})" if default == "None" else f"{container}.get({key}, {default})"
            yield Mutation(
                "crash-bound",
                weight * (1.0 - 0.05 * rank),
                (Edit(path, *src.span(node), text),),
                f"`{short(src.segment(node))}` -> `{short(text)}`",
            )


def index_bounds(src: SourceFile, statement: ast.stmt, parents, facts: FunctionFacts) -> Iterator[Mutation]:
    path = src.path
    indexed = [
        n
        for n in header_walk(statement)
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and not isinstance(n.slice, ast.Slice)
    ]
    for node in indexed[:3]:
        container, index = src.segment(node.value), src.segment(node.slice)
        loop_bound = _loop_range_bound(node, statement, parents, facts)
        if loop_bound is not None:
            bound, text = loop_bound
            yield Mutation(
                "crash-bound", 1.0, (Edit(path, *src.span(bound), text),),
                f"the loop's range ends at `{short(text)}` so `{short(src.segment(node))}` stays in bounds",
            )  # fmt: skip
        negative = isinstance(node.slice, ast.UnaryOp) and isinstance(node.slice.op, ast.USub)
        check = container if negative else f"{index} < len({container})"
        for rank, default in enumerate(DEFAULTS[:3]):
            text = f"({src.segment(node)} if {check} else {default})"
            yield Mutation(
                "crash-bound",
                0.9 - 0.05 * rank,
                (Edit(path, *src.span(node), text),),
                f"`{short(src.segment(node))}` -> `{short(text)}`",
            )
        if not negative:
            text = f"{container}[min({index}, len({container}) - 1)]"
            yield Mutation(
                "crash-bound", 0.7, (Edit(path, *src.span(node), text),), f"index clamped: `{short(text)}`"
            )
    for node in header_walk(statement):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop":
            owner = src.segment(node.func.value)
            text = f"({src.segment(node)} if {owner} else None)"
            yield Mutation(
                "crash-bound",
                0.85,
                (Edit(path, *src.span(node), text),),
                f"pop only when `{owner}` has items",
            )


def _loop_range_bound(node: ast.Subscript, statement, parents, facts) -> tuple[ast.expr, str] | None:
    """`for i in range(len(a)): a[i + 1]` -> `range(len(a) - 1)`: the range of the loop whose
    variable indexes past the end."""
    used = {n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name)}
    loop = parents.get(statement)
    while loop is not None and loop is not facts.function:
        if (
            isinstance(loop, ast.For)
            and isinstance(loop.target, ast.Name)
            and loop.target.id in used
            and isinstance(loop.iter, ast.Call)
            and called_name(loop.iter) == "range"
            and loop.iter.args
        ):
            bound = loop.iter.args[0] if len(loop.iter.args) == 1 else loop.iter.args[1]
            return bound, f"{ast.unparse(bound)} - 1"
        loop = parents.get(loop)
    return None


def _is_pop(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop"


def _method_on(node: ast.Subscript, parents) -> str | None:
    """`d[k].append(v)` -> "append": the method called on the subscript, if any."""
    attribute = parents.get(node)
    call = parents.get(attribute)
    if isinstance(attribute, ast.Attribute) and isinstance(call, ast.Call) and call.func is attribute:
        return attribute.attr
    return None
