"""Expression operators: the families that change one operator token, operand, constant or name.

Operators replaced (comparison, arithmetic, augmented assignment, boolean), operands and branches
swapped, a `not` or a clause dropped, constants, strings, names and attributes replaced, a name
replaced by an attribute of it the function reads. Each node
type goes to its families here; calls go on to `call_operators`, bounds and slices to
`bound_operators`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from selfheal.agent.repair.bound_operators import int_constant, off_by_one_sites, slice_mutations
from selfheal.agent.repair.call_operators import call_mutations
from selfheal.agent.repair.edits import Edit
from selfheal.agent.repair.mutation import Mutation, operator_edit, paren, short

MAX_ATTRIBUTES_OF = 3

COMPARE_SYMBOLS = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
# (from, to) -> relative likelihood within the family
COMPARE_SWAPS = {
    "<": {"<=": 1.0, ">": 0.5, ">=": 0.4, "!=": 0.3, "==": 0.25},
    "<=": {"<": 1.0, ">=": 0.5, ">": 0.4, "==": 0.3, "!=": 0.25},
    ">": {">=": 1.0, "<": 0.5, "<=": 0.4, "!=": 0.3, "==": 0.25},
    ">=": {">": 1.0, "<=": 0.5, "<": 0.4, "==": 0.3, "!=": 0.25},
    "==": {"!=": 0.9, "<=": 0.35, ">=": 0.35, "<": 0.25, ">": 0.25, "is": 0.2},
    "!=": {"==": 0.9, "<": 0.3, ">": 0.3, "is not": 0.2},
    "is": {"is not": 0.9, "==": 0.4},
    "is not": {"is": 0.9, "!=": 0.4},
    "in": {"not in": 0.9},
    "not in": {"in": 0.9},
}
BINOP_SYMBOLS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.MatMult: "@",
}
BINOP_SWAPS = {
    "+": {"-": 1.0, "*": 0.3},
    "-": {"+": 1.0, "*": 0.2},
    "*": {"/": 0.7, "//": 0.6, "+": 0.4, "**": 0.3, "-": 0.2},
    "/": {"//": 0.8, "*": 0.7, "%": 0.3},
    "//": {"/": 0.8, "%": 0.6, "*": 0.4},
    "%": {"//": 0.6, "/": 0.3},
    "**": {"*": 0.7},
    "<<": {">>": 0.8},
    ">>": {"<<": 0.8},
    "&": {"|": 0.8, "^": 0.3},
    "|": {"&": 0.8, "^": 0.3},
    "^": {"|": 0.4, "&": 0.3},
}
NON_COMMUTATIVE = {"-", "/", "//", "%", "**", "<<", ">>", "@"}
# an in-place update also goes wrong across families: flags added instead of or-ed in
# (`flags += BIT`), a halving written as a shift or the reverse (`n >>= 1` / `n //= 2`), a
# toggle for a set (`^=` / `|=`), a remainder where a mask was meant; below the same-family swaps
AUGMENTED_ACROSS = {
    "+": {"|": 0.3, "^": 0.2},
    "-": {"^": 0.2},
    "*": {"<<": 0.2},
    "//": {">>": 0.3},
    "%": {"&": 0.2},
    "<<": {"*": 0.3},
    ">>": {"//": 0.3},
    "|": {"+": 0.3},
    "^": {"+": 0.2},
    "&": {"%": 0.2},
}


def _symbol_pattern(symbol: str) -> str:
    if symbol in ("and", "or", "in", "is"):
        return rf"(?<![\w.]){symbol}(?!\w)"
    if symbol == "not in":
        return r"(?<![\w.])not\s+in(?!\w)"
    if symbol == "is not":
        return r"(?<![\w.])is\s+not(?!\w)"
    return rf"(?<![<>=!*/%&|^@+\-]){re.escape(symbol)}(?![<>=*/])"


def expression_mutations(src, node, parents, facts, module) -> Iterator[Mutation]:
    path = src.path
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            symbol = COMPARE_SYMBOLS[type(op)]
            span = operator_edit(src, operands[index], operands[index + 1], _symbol_pattern(symbol))
            if span is None:
                continue
            for new, weight in COMPARE_SWAPS.get(symbol, {}).items():
                yield Mutation(
                    "comparison-operator",
                    weight,
                    (Edit(path, *span, new),),
                    f"`{symbol}` -> `{new}` in `{short(src.segment(node))}`",
                )
        yield from off_by_one_sites(src, [c for c in operands], node, "comparison operand")

    elif isinstance(node, ast.BinOp):
        symbol = BINOP_SYMBOLS[type(node.op)]
        span = operator_edit(src, node.left, node.right, _symbol_pattern(symbol))
        if span is not None:
            for new, weight in BINOP_SWAPS.get(symbol, {}).items():
                if _identity(node, new):
                    continue  # `n * 1` is `n`, which removing the constant offers more plainly
                yield Mutation(
                    "arithmetic-operator",
                    weight,
                    (Edit(path, *span, new),),
                    f"`{symbol}` -> `{new}` in `{short(src.segment(node))}`",
                )
        if symbol in NON_COMMUTATIVE or (symbol == "+" and not _numeric(node)):
            swapped = f"{paren(src, node.right)} {symbol} {paren(src, node.left)}"
            yield Mutation(
                "operand-swap",
                1.0 if symbol in NON_COMMUTATIVE else 0.4,
                (Edit(path, *src.span(node), swapped),),
                f"swap operands: `{short(src.segment(node))}` -> `{short(swapped)}`",
            )

    elif isinstance(node, ast.AugAssign):
        symbol = BINOP_SYMBOLS[type(node.op)]
        span = operator_edit(src, node.target, node.value, re.escape(symbol + "="))
        if span is not None:
            swaps = {**BINOP_SWAPS.get(symbol, {}), **AUGMENTED_ACROSS.get(symbol, {})}
            for new, weight in swaps.items():
                yield Mutation(
                    "augmented-assignment",
                    weight,
                    (Edit(path, *span, new + "="),),
                    f"`{symbol}=` -> `{new}=` in `{short(src.segment(node))}`",
                )
            yield Mutation(
                "augmented-assignment",
                0.4,
                (Edit(path, *span, "="),),
                f"`{symbol}=` -> `=` in `{short(src.segment(node))}`",
            )

    elif isinstance(node, ast.BoolOp):
        symbol = "and" if isinstance(node.op, ast.And) else "or"
        new = "or" if symbol == "and" else "and"
        spans = [
            operator_edit(src, a, b, _symbol_pattern(symbol))
            for a, b in zip(node.values, node.values[1:], strict=False)
        ]
        if all(spans):
            yield Mutation(
                "boolean-operator",
                1.0,
                tuple(Edit(path, *s, new) for s in spans),
                f"`{symbol}` -> `{new}` in `{short(src.segment(node))}`",
            )
        for index, value in enumerate(node.values):
            rest = [v for i, v in enumerate(node.values) if i != index]
            text = f" {symbol} ".join(
                paren(src, v) if isinstance(v, ast.BoolOp) else src.segment(v) for v in rest
            )
            yield Mutation(
                "condition",
                0.8,
                (Edit(path, *src.span(node), text),),
                f"drop clause `{short(src.segment(value))}` from `{short(src.segment(node))}`",
            )

    elif isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            operand_end = src.span(node)[1]
            after_not = src.data[src.span(node)[0] + 3 : operand_end].decode("utf-8").strip()
            yield Mutation(
                "negation",
                1.0,
                (Edit(path, *src.span(node), after_not),),
                f"remove `not` from `{short(src.segment(node))}`",
            )
        elif isinstance(node.op, ast.USub) and int_constant(node.operand):
            value = -node.operand.value
            for new in (value + 1, value - 1):
                yield Mutation(
                    "off-by-one", 0.9, (Edit(path, *src.span(node), str(new)),), f"constant {value} -> {new}"
                )

    elif isinstance(node, ast.Constant):
        parent = parents.get(node)
        if int_constant(node) and not (isinstance(parent, ast.UnaryOp)):
            for new in (node.value + 1, node.value - 1):
                if (
                    new == 0
                    and isinstance(parent, ast.BinOp)
                    and parent.right is node
                    and isinstance(parent.op, (ast.Add, ast.Sub))
                ):
                    continue  # `x - 0`: the off-by-one site already offers plain `x`
                yield Mutation(
                    "off-by-one",
                    1.0,
                    (Edit(path, *src.span(node), str(new)),),
                    f"constant {node.value} -> {new}",
                )
        elif isinstance(node.value, bool):
            new = str(not node.value)
            yield Mutation("literal", 1.0, (Edit(path, *src.span(node), new),), f"`{node.value}` -> `{new}`")
        elif (
            isinstance(node.value, str)
            and not isinstance(parent, ast.JoinedStr)
            and not _is_docstring(node, parents)
        ):
            for other in facts.strings[:8]:
                if other != node.value:
                    yield Mutation(
                        "literal",
                        0.4,
                        (Edit(path, *src.span(node), repr(other)),),
                        f"string {node.value!r} -> {other!r}",
                    )

    elif isinstance(node, ast.Subscript):
        if isinstance(node.slice, ast.Slice):
            yield from slice_mutations(src, node)
        elif not isinstance(node.ctx, ast.Del):
            yield from off_by_one_sites(src, [node.slice], node, "index")

    elif isinstance(node, ast.Call):
        yield from call_mutations(src, node, parents, facts, module)

    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        parent = parents.get(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            alternatives = [f for f in module.functions if f != node.id]
        elif node.id in facts.scope_names:
            alternatives = [n for n in facts.scope_names if n != node.id]
        else:
            alternatives = []
        for index, other in enumerate(alternatives[:10]):
            weight = 1.0 if index < 3 else 0.6
            yield Mutation("name", weight, (Edit(path, *src.span(node), other),), f"`{node.id}` -> `{other}`")
        if node.id in facts.scope_names and not isinstance(parent, (ast.Attribute, ast.Call)):
            # `while node is not None` -> `while node.parent is not None`: an attribute the function reads
            for other in facts.attribute_reads.get(node.id, [])[:MAX_ATTRIBUTES_OF]:
                yield Mutation(
                    "attribute-of",
                    1.0,
                    (Edit(path, *src.span(node), f"{node.id}.{other}"),),
                    f"`{node.id}` -> `{node.id}.{other}`",
                )

    elif (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and isinstance(node.ctx, ast.Load)
    ):
        parent = parents.get(node)
        if not (isinstance(parent, ast.Call) and parent.func is node):
            others = sorted(module.attributes.get(node.value.id, set()) - {node.attr})
            start = src.span(node)[1] - len(node.attr.encode())
            for other in others[:8]:
                yield Mutation(
                    "attribute",
                    1.0,
                    (Edit(path, start, src.span(node)[1], other),),
                    f"`{node.value.id}.{node.attr}` -> `{node.value.id}.{other}`",
                )

    elif isinstance(node, ast.IfExp):
        swapped = f"{src.segment(node.orelse)} if {src.segment(node.test)} else {src.segment(node.body)}"
        yield Mutation(
            "operand-swap",
            0.8,
            (Edit(path, *src.span(node), swapped),),
            f"swap branches of `{short(src.segment(node))}`",
        )


def _identity(node: ast.BinOp, symbol: str) -> bool:
    """Would `node` with operator `symbol` just return its other operand?"""
    right = node.right.value if isinstance(node.right, ast.Constant) else None
    left = node.left.value if isinstance(node.left, ast.Constant) else None
    if symbol in ("*", "/", "//", "**") and right == 1:
        return True
    if symbol in ("+", "-") and right == 0:
        return True
    return (symbol == "*" and left == 1) or (symbol == "+" and left == 0)


def _numeric(node: ast.BinOp) -> bool:
    return any(
        isinstance(side, ast.Constant) and isinstance(side.value, (int, float))
        for side in (node.left, node.right)
    )


def _is_docstring(node: ast.Constant, parents) -> bool:
    parent = parents.get(node)
    return isinstance(parent, ast.Expr)
