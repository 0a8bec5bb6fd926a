"""Check templates: the order of `if`/`elif` checks, and tests for None instead of falsiness.

A narrow case checked before the broad one that shadows it; `x or d` and `if x:` made to treat
0, "" and [] as values.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import Mutation, paren, short

# -- the order of checks -------------------------------------------------------------------


def branch_order(src: SourceFile, statement: ast.stmt, parents) -> Iterator[Mutation]:
    """`if a: ... elif b: ...` -> `if b: ... elif a: ...`: a broad check that shadows a narrow one.

    From an `if` or `elif` line, the swap with the branch after it; from an `elif`, also the swap
    with the one before it (the suspicious line is the broad check, or the one it shadows)."""
    if not isinstance(statement, ast.If):
        return
    pairs = []
    parent = parents.get(statement)
    if isinstance(parent, ast.If) and parent.orelse == [statement] and _is_elif(src, statement):
        pairs.append((parent, statement))
    if (
        len(statement.orelse) == 1
        and isinstance(statement.orelse[0], ast.If)
        and _is_elif(src, statement.orelse[0])
    ):
        pairs.append((statement, statement.orelse[0]))
    for first, second in pairs:
        first_body, second_body = _block_span(src, first.body), _block_span(src, second.body)
        if first_body is None or second_body is None:
            continue
        edits = (
            Edit(src.path, *src.span(first.test), src.segment(second.test)),
            Edit(src.path, *first_body, src.data[slice(*second_body)].decode("utf-8")),
            Edit(src.path, *src.span(second.test), src.segment(first.test)),
            Edit(src.path, *second_body, src.data[slice(*first_body)].decode("utf-8")),
        )
        yield Mutation(
            "statement-move",
            0.9,
            edits,
            f"check `{short(src.segment(second.test))}` (line {second.lineno}) before "
            f"`{short(src.segment(first.test))}` (line {first.lineno})",
        )


def _is_elif(src: SourceFile, node: ast.If) -> bool:
    return src.line_text(node.lineno).lstrip().startswith("elif")


def _block_span(src: SourceFile, body: list[ast.stmt]) -> tuple[int, int] | None:
    """Bytes of a block's whole lines; None when it shares a line with its header."""
    first, last = body[0], body[-1]
    if src.line_text(first.lineno).lstrip() != src.segment(first).splitlines()[0].lstrip():
        return None
    start = src.line_starts[first.lineno - 1]
    end_line = last.end_lineno or last.lineno
    end = src.line_starts[end_line] if end_line < len(src.line_starts) else len(src.data)
    return start, end


# -- None instead of falsiness --------------------------------------------------------------


def or_default(src: SourceFile, node: ast.BoolOp) -> Iterator[Mutation]:
    """`x or default` -> `x if x is not None else default`: 0, "" and [] are values too."""
    if not (isinstance(node.op, ast.Or) and len(node.values) == 2):
        return
    first, default = node.values
    if not isinstance(first, (ast.Name, ast.Attribute, ast.Subscript)):
        return
    value = src.segment(first)
    text = f"{value} if {value} is not None else {paren(src, default)}"
    yield Mutation(
        "none-check",
        1.0,
        (Edit(src.path, *src.span(node), text),),
        f"`{short(src.segment(node))}` -> `{short(text)}`",
    )


def none_test(src: SourceFile, statement: ast.stmt) -> Iterator[Mutation]:
    """`if x:` -> `if x is not None:` and `if not x:` -> `if x is None:`."""
    if not isinstance(statement, (ast.If, ast.While)):
        return
    test = statement.test
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    operand = test.operand if negated else test
    if not isinstance(operand, (ast.Name, ast.Attribute, ast.Subscript)):
        return
    text = f"{src.segment(operand)} {'is' if negated else 'is not'} None"
    yield Mutation(
        "none-check",
        0.8,
        (Edit(src.path, *src.span(test), text),),
        f"condition `{short(src.segment(test))}` -> `{short(text)}`",
    )
