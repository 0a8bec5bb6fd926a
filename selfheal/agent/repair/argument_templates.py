"""Argument templates: what a call, a merge or a comparison is given.

A split or replace limited to one, the other side of a dict merge or union winning, an operand
normalised (`.lower()`, `.strip()`) before it is compared.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import ATOMS, Mutation, called_name, paren, short


def limited_split(src: SourceFile, node: ast.Call) -> Iterator[Mutation]:
    """`line.split("=")` -> `line.split("=", 1)`: the value may hold the separator too."""
    if not (
        isinstance(node.func, ast.Attribute)
        and node.func.attr in ("split", "rsplit", "replace")
        and not node.keywords
        and all(not isinstance(a, ast.Starred) for a in node.args)
    ):
        return
    wanted = 2 if node.func.attr == "replace" else 1
    if len(node.args) != wanted:
        return
    end = src.span(node.args[-1])[1]
    yield Mutation(
        "argument",
        1.0 if node.func.attr != "replace" else 0.5,
        (Edit(src.path, end, end, ", 1"),),
        f"`{short(src.segment(node))}` -> at most one {'split' if wanted == 1 else 'replacement'}",
    )


def dict_merge_order(src: SourceFile, node: ast.Dict) -> Iterator[Mutation]:
    """`{**a, **b}` -> `{**b, **a}`: which side wins a shared key."""
    if len(node.keys) < 2 or all(k is not None for k in node.keys):
        return
    entries = [
        f"**{src.segment(v)}" if k is None else f"{src.segment(k)}: {src.segment(v)}"
        for k, v in zip(node.keys, node.values, strict=True)
    ]
    for i in range(len(entries) - 1):
        if node.keys[i] is not None and node.keys[i + 1] is not None:
            continue  # two plain keys: their order does not matter
        swapped = [*entries[:i], entries[i + 1], entries[i], *entries[i + 2 :]]
        text = "{" + ", ".join(swapped) + "}"
        yield Mutation(
            "operand-swap",
            0.9,
            (Edit(src.path, *src.span(node), text),),
            f"merge order `{short(src.segment(node))}` -> `{short(text)}`",
        )


def union_order(src: SourceFile, node: ast.BinOp) -> Iterator[Mutation]:
    """`a | b` -> `b | a`: which side of a dict union wins a shared key."""
    if isinstance(node.op, ast.BitOr) and not _numeric_operand(node):
        swapped = f"{paren(src, node.right)} | {paren(src, node.left)}"
        yield Mutation(
            "operand-swap",
            0.5,
            (Edit(src.path, *src.span(node), swapped),),
            f"merge the other way round: `{short(src.segment(node))}` -> `{short(swapped)}`",
        )


def _numeric_operand(node: ast.BinOp) -> bool:
    return any(
        isinstance(side, ast.Constant) and isinstance(side.value, (int, float))
        for side in (node.left, node.right)
    )


def normalise_before_compare(src: SourceFile, node: ast.Compare) -> Iterator[Mutation]:
    """`word in NAMES` -> `word.lower() in NAMES` (and `.strip()`) for a case or space mismatch."""
    if len(node.ops) != 1:
        return
    op = node.ops[0]
    if isinstance(op, (ast.In, ast.NotIn)):
        operands = [node.left]
    elif isinstance(op, (ast.Eq, ast.NotEq)):
        operands = [node.left, node.comparators[0]]
    else:
        return
    for operand in operands:
        if isinstance(operand, ast.Constant) or not isinstance(
            operand, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)
        ):
            continue
        if isinstance(operand, ast.Call) and called_name(operand) in ("lower", "casefold", "strip", "len"):
            continue
        text = src.segment(operand) if isinstance(operand, ATOMS) else f"({src.segment(operand)})"
        for method, weight in (("lower", 1.0), ("strip", 0.6)):
            yield Mutation(
                "normalize",
                weight,
                (Edit(src.path, *src.span(operand), f"{text}.{method}()"),),
                f"`{short(src.segment(operand))}` -> `{short(text)}.{method}()` in "
                f"`{short(src.segment(node))}`",
            )
