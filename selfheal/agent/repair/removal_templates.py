"""Removal templates: a sub-expression taken out of an expression.

TBar's "remove an expression": an addend, a factor or any operand of a binary operation dropped
(`base + fee + tax` -> `base + tax`, `rate * hours * 60` -> `rate * hours`), and a sign or bit
negation dropped (`-delta` -> `delta`, `~mask` -> `mask`). Dropping a wrapping call and a `not`
are the call-unwrap and negation families'; dropping a `+ 1` is off-by-one's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.arithmetic_templates import PRECEDENCE
from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import ATOMS, Mutation, header_nodes, short

MAX_REMOVALS = 8  # per suspicious statement
# a left operand may go alone where `a op b` was only if the operator does not need it: `a - b`
# without its `a` is `-b`, another expression, not a removal
LEFT_DROPPABLE = (ast.Add, ast.Mult, ast.BitOr, ast.BitAnd, ast.BitXor)


def removed_subexpressions(src: SourceFile, statement: ast.stmt) -> Iterator[Mutation]:
    made = 0
    for header in header_nodes(statement):
        for node in ast.walk(header):
            for kept, weight, what in _removals(node):
                if isinstance(kept, ast.Constant):
                    continue  # `x * 2` -> `2` forgets every input: not a repair
                start, end = src.span(node)
                # brackets (a call's or a group's) around the whole expression hold any operand
                bracketed = src.data[start - 1 : start] == b"(" and src.data[end : end + 1] == b")"
                alone = bracketed or _fits_alone(kept, node)
                text = src.segment(kept) if alone else f"({src.segment(kept)})"
                yield Mutation(
                    "subexpression-removal",
                    weight,
                    (Edit(src.path, start, end, text),),
                    f"drop {what} from `{short(src.segment(node))}` -> `{short(text)}`",
                )
                made += 1
                if made >= MAX_REMOVALS:
                    return


def _removals(node: ast.AST) -> Iterator[tuple[ast.expr, float, str]]:
    if isinstance(node, ast.BinOp) and type(node.op) in PRECEDENCE:
        if not _is_one(node.right, node.op):
            yield node.left, 1.0, f"the {_kind(node.op)} `{_describe(node.right)}`"
        if isinstance(node.op, LEFT_DROPPABLE):
            yield node.right, 0.8, f"the {_kind(node.op)} `{_describe(node.left)}`"
    elif (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.Invert))
        and not isinstance(node.operand, ast.Constant)
    ):
        yield node.operand, 1.0, "the sign" if isinstance(node.op, ast.USub) else "the bit negation"


def _is_one(node: ast.expr, op: ast.operator) -> bool:
    # `x + 1` -> `x` is the off-by-one family's edit; it keeps its name
    return isinstance(op, (ast.Add, ast.Sub)) and isinstance(node, ast.Constant) and node.value == 1


def _fits_alone(kept: ast.expr, node: ast.AST) -> bool:
    """Can `kept` stand where `node` stood without brackets? Yes when it binds at least as tightly."""
    if isinstance(kept, (*ATOMS, ast.UnaryOp)):
        return True
    if isinstance(kept, ast.BinOp) and isinstance(node, ast.BinOp):
        return PRECEDENCE[type(kept.op)] > PRECEDENCE[type(node.op)] or (
            kept is node.left and PRECEDENCE[type(kept.op)] == PRECEDENCE[type(node.op)]
        )
    return False


def _kind(op: ast.operator) -> str:
    return {ast.Add: "addend", ast.Sub: "subtrahend", ast.Mult: "factor"}.get(type(op), "operand")


def _describe(node: ast.expr) -> str:
    return short(ast.unparse(node), 30)
