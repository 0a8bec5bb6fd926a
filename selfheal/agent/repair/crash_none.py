"""Error-directed repairs of an `AttributeError` or `TypeError` on None: a None check at the crash
site (a guard before it, a default in the expression, or the statement skipped)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.crash_site import header_walk
from selfheal.agent.repair.edits import Edit
from selfheal.agent.repair.mutation import (
    FunctionFacts,
    Mutation,
    called_name,
    indent_unit,
    inside_loop,
    short,
)
from selfheal.agent.repair.statement_operators import owns_its_lines


def none_checks(src, statement, parents, facts: FunctionFacts, crash: Crash) -> Iterator[Mutation]:
    suspects = _none_suspects(statement, crash.message)
    seen: set[str] = set()
    for node, default in suspects[:3]:
        text = src.segment(node)
        if text in seen:
            continue
        seen.add(text)
        yield from _guard_before(src, statement, parents, facts, text)
        if default is not None:
            replacement = f"({text} if {text} is not None else {default})"
            yield Mutation(
                "crash-none",
                0.9,
                (Edit(src.path, *src.span(node), replacement),),
                f"`{short(text)}` defaults to `{default}` when it is None",
            )
        yield from _skip_when_none(src, statement, text)


def _none_suspects(statement: ast.stmt, message: str) -> list[tuple[ast.expr, str | None]]:
    """The expressions that can be the None the message names, each with a neutral default."""
    nodes = list(header_walk(statement))
    attribute = re.search(r"has no attribute '(\w+)'", message)
    found: list[tuple[ast.expr, str | None]] = []
    if attribute:
        found += [
            (n.value, None) for n in nodes if isinstance(n, ast.Attribute) and n.attr == attribute.group(1)
        ]
    if "not subscriptable" in message:
        found += [(n.value, None) for n in nodes if isinstance(n, ast.Subscript)]
    if "not iterable" in message or "unpack" in message:
        found += [(n.iter, "()") for n in nodes if isinstance(n, ast.comprehension)]
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            found.append((statement.iter, "()"))
        if isinstance(statement, ast.Assign):
            found.append((statement.value, "()"))
    if "has no len()" in message:
        found += [
            (n.args[0], "()") for n in nodes if isinstance(n, ast.Call) and called_name(n) == "len" and n.args
        ]
    if "not callable" in message:
        found += [(n.func, None) for n in nodes if isinstance(n, ast.Call)]
    operand = re.search(r"for [^:]+: '(\w+)' and '(\w+)'|between instances of '(\w+)' and '(\w+)'", message)
    if operand:
        left_none = (operand.group(1) or operand.group(3)) == "NoneType"
        for n in nodes:
            if isinstance(n, ast.BinOp):
                found.append((n.left if left_none else n.right, "0"))
            elif isinstance(n, ast.Compare) and len(n.comparators) == 1:
                found.append((n.left if left_none else n.comparators[0], None))
        if isinstance(statement, ast.AugAssign):
            found.append((statement.target if left_none else statement.value, "0"))
    return [(n, d) for n, d in found if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))]


def _guard_before(src, statement, parents, facts: FunctionFacts, text: str) -> Iterator[Mutation]:
    if not owns_its_lines(src, statement) or facts.function is None:
        return
    indent = src.indent_of(statement.lineno)
    start = src.line_starts[statement.lineno - 1]
    exits = (
        ["return"] if facts.is_generator else [f"return {v}" for v in facts.default_returns(src) or ["None"]]
    )
    if inside_loop(statement, parents, facts.function):
        exits.insert(0, "continue")
    for rank, exit_ in enumerate(exits[:4]):
        guard = f"{indent}if {text} is None:\n{indent}{indent_unit(src)}{exit_}\n"
        yield Mutation(
            "crash-none",
            1.0 - 0.05 * rank,
            (Edit(src.path, start, start, guard),),
            f"`if {short(text)} is None: {exit_}` before line {statement.lineno}",
        )


def _skip_when_none(src, statement, text: str) -> Iterator[Mutation]:
    if not isinstance(statement, (ast.Expr, ast.AugAssign)) or not owns_its_lines(src, statement):
        return
    indent = src.indent_of(statement.lineno)
    start = src.line_starts[statement.lineno - 1]
    end_line = statement.end_lineno or statement.lineno
    end = src.line_starts[end_line] if end_line < len(src.line_starts) else len(src.data)
    body = "".join(
        f"{indent_unit(src)}{line}" for line in src.data[start:end].decode("utf-8").splitlines(keepends=True)
    )
    yield Mutation(
        "crash-none",
        0.8,
        (Edit(src.path, start, end, f"{indent}if {text} is not None:\n{body}"),),
        f"line {statement.lineno} only when `{short(text)}` is not None",
    )
