"""Bound operators: off-by-one changes of bounds, indices, lengths and comparison operands, and slices.

A slice can have a bound moved by one, dropped, or taken from the other end (`x[k:]` <-> `x[:-k]`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import ATOMS, Mutation, paren, short


def int_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def off_by_one_sites(src, nodes, context_node, where) -> Iterator[Mutation]:
    """`e` -> `e + 1` / `e - 1`, and `e +/- 1` -> `e`, for bounds, indices and comparisons."""
    for node in nodes:
        if int_constant(node) or isinstance(node, (ast.Slice, ast.Tuple)):
            continue
        if isinstance(node, ast.Constant) or (isinstance(node, ast.UnaryOp) and int_constant(node.operand)):
            continue
        span = src.span(node)
        text = src.segment(node)
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, (ast.Add, ast.Sub))
            and isinstance(node.right, ast.Constant)
            and node.right.value == 1
        ):
            yield Mutation(
                "off-by-one",
                0.9,
                (Edit(src.path, *span, src.segment(node.left)),),
                f"{where} `{short(text)}` -> `{short(src.segment(node.left))}`",
            )
            continue
        base = text if isinstance(node, (*ATOMS, ast.BinOp)) and not _low_precedence(node) else f"({text})"
        for sign in ("+", "-"):
            yield Mutation(
                "off-by-one",
                0.8,
                (Edit(src.path, *span, f"{base} {sign} 1"),),
                f"{where} `{short(text)}` -> `{short(base)} {sign} 1`",
            )


def _low_precedence(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(
        node.op, (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
    )


def slice_mutations(src: SourceFile, node: ast.Subscript) -> Iterator[Mutation]:
    piece = node.slice
    path = src.path
    value = src.segment(node.value)
    bounds = [b for b in (piece.lower, piece.upper) if b is not None]
    yield from (
        Mutation("slice", m.weight, m.edits, m.description)
        for m in off_by_one_sites(src, bounds, node, "slice bound")
    )
    for bound in bounds:
        if int_constant(bound):
            for new in (bound.value + 1, bound.value - 1):
                yield Mutation(
                    "slice",
                    0.9,
                    (Edit(path, *src.span(bound), str(new)),),
                    f"slice bound {bound.value} -> {new}",
                )
    lower = src.segment(piece.lower) if piece.lower else ""
    upper = src.segment(piece.upper) if piece.upper else ""
    step = src.segment(piece.step) if piece.step else ""
    variants = []
    if piece.lower is not None:
        variants.append(f"{value}[:{upper}{':' + step if step else ''}]")
    if piece.upper is not None:
        variants.append(f"{value}[{lower}:{':' + step if step else ''}]")
    if piece.step is not None:
        variants.append(f"{value}[{lower}:{upper}]")
    # the bound on the other side: `x[k:]` <-> `x[:-k]`, `x[:k]` <-> `x[-k:]`
    only_lower = piece.lower is not None and piece.upper is None and piece.step is None
    only_upper = piece.upper is not None and piece.lower is None and piece.step is None
    if only_lower or only_upper:
        bound = piece.lower if only_lower else piece.upper
        negated = _negate(src, bound)
        variants += (
            [f"{value}[:{negated}]", f"{value}[{negated}:]"]
            if only_lower
            else [f"{value}[{negated}:]", f"{value}[:{negated}]"]
        )
    for text in variants:
        yield Mutation(
            "slice",
            0.6,
            (Edit(path, *src.span(node), text),),
            f"slice `{short(src.segment(node))}` -> `{short(text)}`",
        )


def _negate(src: SourceFile, node: ast.AST) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return src.segment(node.operand)
    return f"-{paren(src, node)}"
