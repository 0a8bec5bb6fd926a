"""Arithmetic templates: off-by-one in arguments and slice bounds, accumulation, regrouping.

A `+ 1` / `- 1` dropped wherever it is or added to an argument, a negative slice bound counted
from the length, an overwrite turned into an accumulation (`=` -> `+=`), an expression regrouped
or its brackets dropped.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import (
    FunctionFacts,
    Mutation,
    called_name,
    inside_loop,
    operator_edit,
    paren,
    short,
)

# binding strength of binary operators, higher binds tighter (the Python grammar's order)
PRECEDENCE = {
    ast.BitOr: 1,
    ast.BitXor: 2,
    ast.BitAnd: 3,
    ast.LShift: 4,
    ast.RShift: 4,
    ast.Add: 5,
    ast.Sub: 5,
    ast.Mult: 6,
    ast.Div: 6,
    ast.FloorDiv: 6,
    ast.Mod: 6,
    ast.MatMult: 6,
    ast.Pow: 7,
}
ASSOCIATIVE = (ast.Add, ast.Mult, ast.BitOr, ast.BitAnd, ast.BitXor)


# -- off by one: drop a `+ 1` / `- 1` wherever it is, bound an argument ------------------------


def drop_one(src: SourceFile, node: ast.BinOp) -> Iterator[Mutation]:
    if (
        isinstance(node.op, (ast.Add, ast.Sub))
        and isinstance(node.right, ast.Constant)
        and type(node.right.value) is int
        and node.right.value == 1
    ):
        left = src.segment(node.left)
        yield Mutation(
            "off-by-one",
            0.85,
            (Edit(src.path, *src.span(node), left),),
            f"`{short(src.segment(node))}` -> `{short(left)}`",
        )


def bounded_arguments(src: SourceFile, node: ast.Call, facts: FunctionFacts) -> Iterator[Mutation]:
    """`f(x, n)` -> `f(x, n - 1)`: a count or limit passed on one too high or too low."""
    name = called_name(node)
    if name in ("range", "len") or name is None:
        return  # the mutation operators already bound these
    for arg in node.args:
        if isinstance(arg, ast.Name) and arg.id in facts.scope_names:
            text = arg.id
        elif isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self":
            text = src.segment(arg)
        else:
            continue
        for sign, weight in (("-", 0.7), ("+", 0.6)):
            yield Mutation(
                "off-by-one",
                weight,
                (Edit(src.path, *src.span(arg), f"{text} {sign} 1"),),
                f"argument `{text}` of `{name}(...)` -> `{text} {sign} 1`",
            )


def negative_bound(src: SourceFile, node: ast.Subscript) -> Iterator[Mutation]:
    """`x[-n:]` -> `x[len(x) - n:]`: a negative bound of 0 takes the whole sequence, not none."""
    if not isinstance(node.value, (ast.Name, ast.Attribute)):
        return
    sequence = src.segment(node.value)
    for bound in (node.slice.lower, node.slice.upper):
        if (
            isinstance(bound, ast.UnaryOp)
            and isinstance(bound.op, ast.USub)
            and not isinstance(bound.operand, ast.Constant)
        ):
            text = f"len({sequence}) - {paren(src, bound.operand)}"
            yield Mutation(
                "slice",
                0.7,
                (Edit(src.path, *src.span(bound), text),),
                f"slice bound `{src.segment(bound)}` -> `{text}` in `{short(src.segment(node))}`",
            )


# -- accumulate instead of overwrite --------------------------------------------------------


def accumulate(src, statement, parents, facts: FunctionFacts) -> Iterator[Mutation]:
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return
    target = statement.targets[0]
    if isinstance(target, ast.Name):
        # an accumulator is set up before it is added to: `total = 0` ... `total = f(x)`
        stores = sum(
            1
            for s in facts.statements
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
            if isinstance(t, ast.Name) and t.id == target.id
        )
        if stores < 2 and target.id not in facts.params:
            return
    elif not isinstance(target, (ast.Subscript, ast.Attribute)):
        return
    span = operator_edit(src, target, statement.value, r"(?<![=!<>])=(?!=)")
    if span is None:
        return
    in_loop = inside_loop(statement, parents, facts.function)
    for new, weight in (("+=", 1.0), ("-=", 0.5)):
        yield Mutation(
            "augmented-assignment",
            weight if in_loop else weight * 0.5,
            (Edit(src.path, *span, new),),
            f"`=` -> `{new}` in `{short(src.segment(statement))}`",
        )


# -- regroup an arithmetic expression -------------------------------------------------------


def regroup(src: SourceFile, node: ast.BinOp) -> Iterator[Mutation]:
    """`a * b + c` -> `a * (b + c)` along the left operand chain, and dropping needed brackets."""
    outer = type(node.op)
    inner = node.left
    while isinstance(inner, ast.BinOp) and not _bracketed(src, inner):
        if not (type(inner.op) is outer and isinstance(inner.op, ASSOCIATIVE)):
            start = src.span(inner.right)[0]
            if _bracketed(src, inner.right):
                start = _open_bracket(src, inner.right)
            end = src.span(node)[1]
            regrouped = (
                src.data[src.span(node)[0] : start].decode("utf-8")
                + "("
                + src.data[start:end].decode("utf-8")
                + ")"
            )
            yield Mutation(
                "grouping",
                1.0 if PRECEDENCE[type(inner.op)] > PRECEDENCE[outer] else 0.6,
                (Edit(src.path, start, start, "("), Edit(src.path, end, end, ")")),
                f"regroup `{short(src.segment(node))}` -> `{short(regrouped)}`",
            )
        inner = inner.left
    for child in (node.left, node.right):
        if isinstance(child, ast.BinOp) and _bracketed(src, child):
            opening = _open_bracket(src, child)
            closing = _close_bracket(src, child)
            if PRECEDENCE[type(child.op)] == PRECEDENCE[outer] and child is node.left:
                continue  # `(a + b) + c` reads the same without them
            yield Mutation(
                "grouping",
                0.6,
                (Edit(src.path, opening, opening + 1, ""), Edit(src.path, closing, closing + 1, "")),
                f"drop the brackets around `{short(src.segment(child))}` in `{short(src.segment(node))}`",
            )


def _bracketed(src: SourceFile, node: ast.AST) -> bool:
    return _open_bracket(src, node) >= 0 and _close_bracket(src, node) >= 0


def _open_bracket(src: SourceFile, node: ast.AST) -> int:
    position = src.span(node)[0] - 1
    while position >= 0 and src.data[position : position + 1] in (b" ", b"\t", b"\n", b"\r"):
        position -= 1
    return position if position >= 0 and src.data[position : position + 1] == b"(" else -1


def _close_bracket(src: SourceFile, node: ast.AST) -> int:
    position = src.span(node)[1]
    while position < len(src.data) and src.data[position : position + 1] in (b" ", b"\t", b"\n", b"\r"):
        position += 1
    return position if src.data[position : position + 1] == b")" else -1
