"""Call operators: builtin and method swaps, reversed sorts, argument swaps and call unwrapping.

Methods of the same class with related names come from `sibling_methods`; a method's own class
called by name, where the receiver's class is meant, from `receiver_class`.

Also the bounds a call sets: `range(...)` and `len(...)` get the off-by-one sites of
`bound_operators`; `len(...)` as an operand of arithmetic is moved by `operand_offsets` instead,
which brackets it as the operator needs (`(len(xs) - 1) * n`) and moves a sum once.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator

from selfheal.agent.repair.bound_operators import off_by_one_sites
from selfheal.agent.repair.edits import Edit
from selfheal.agent.repair.mutation import ATOMS, Mutation, paren, short
from selfheal.agent.repair.operand_offsets import in_arithmetic
from selfheal.agent.repair.receiver_class import receiver_class_mutations
from selfheal.agent.repair.sibling_methods import sibling_method_mutations

FUNCTION_SWAPS = {
    "any": ("all",),
    "all": ("any",),
    "min": ("max",),
    "max": ("min",),
    "round": ("int",),
    "int": ("round",),
    "floor": ("ceil",),
    "ceil": ("floor",),
    "sorted": ("reversed",),
    "reversed": ("sorted",),
}
METHOD_SWAPS = {
    "strip": ("rstrip", "lstrip"),
    "lstrip": ("strip", "rstrip"),
    "rstrip": ("strip", "lstrip"),
    "startswith": ("endswith",),
    "endswith": ("startswith",),
    "find": ("rfind",),
    "rfind": ("find",),
    "index": ("rindex",),
    "rindex": ("index",),
    "split": ("rsplit",),
    "rsplit": ("split",),
    "lower": ("upper", "casefold"),
    "upper": ("lower",),
    "append": ("extend",),
    "extend": ("append",),
    "keys": ("values", "items"),
    "values": ("keys", "items"),
    "items": ("keys", "values"),
    "remove": ("discard",),
    "isdigit": ("isnumeric", "isdecimal", "isalnum"),
    "isalpha": ("isalnum",),
    "isalnum": ("isalpha",),
    "partition": ("rpartition",),
    "rpartition": ("partition",),
    "removeprefix": ("removesuffix",),
    "removesuffix": ("removeprefix",),
    "match": ("fullmatch", "search"),
    "fullmatch": ("match",),
    "search": ("match",),
    "floor": ("ceil",),
    "ceil": ("floor",),
}
UNWRAP_CALLS = {
    "abs",
    "int",
    "float",
    "str",
    "round",
    "list",
    "tuple",
    "set",
    "sorted",
    "reversed",
    "bool",
    "len",
}
UNWRAP_METHODS = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "copy"}


def call_mutations(src, node: ast.Call, parents, facts, module) -> Iterator[Mutation]:
    path = src.path
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name is None:
        return
    name_span = (src.span(func)[1] - len(name.encode()), src.span(func)[1])
    swaps = FUNCTION_SWAPS.get(name, ()) if isinstance(func, ast.Name) else METHOD_SWAPS.get(name, ())
    if isinstance(func, ast.Attribute) and name in ("floor", "ceil"):
        swaps = FUNCTION_SWAPS[name]
    for other in swaps:
        yield Mutation(
            "builtin-swap", 1.0, (Edit(path, *name_span, other),), f"`{name}(...)` -> `{other}(...)`"
        )
    if isinstance(func, ast.Attribute):
        yield from sibling_method_mutations(src, node, tuple(module.classes), (name, *swaps))
    yield from receiver_class_mutations(src, node, parents, facts, module)
    if name in ("sorted",) or (isinstance(func, ast.Attribute) and name == "sort"):
        reverse = [k for k in node.keywords if k.arg == "reverse"]
        if not reverse:
            end = src.span(node)[1] - 1
            sep = ", " if node.args or node.keywords else ""
            yield Mutation(
                "builtin-swap",
                0.6,
                (Edit(path, end, end, f"{sep}reverse=True"),),
                f"`{name}(...)` -> `{name}(..., reverse=True)`",
            )
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(node.args) and len(positional) >= 2:
        for first, second in itertools.pairwise(positional):
            yield Mutation(
                "argument-swap", 1.0,
                (Edit(path, *src.span(first), src.segment(second)),
                 Edit(path, *src.span(second), src.segment(first))),
                f"swap arguments `{short(src.segment(first))}` and "
                f"`{short(src.segment(second))}` of `{name}(...)`",
            )  # fmt: skip
    if (
        isinstance(func, ast.Name)
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    ):
        weight = 1.0 if name in UNWRAP_CALLS else 0.4
        inner = paren(src, node.args[0]) if not isinstance(node.args[0], ATOMS) else src.segment(node.args[0])
        yield Mutation(
            "call-unwrap",
            weight,
            (Edit(path, *src.span(node), inner),),
            f"`{short(src.segment(node))}` -> `{short(inner)}`",
        )
    if isinstance(func, ast.Attribute) and name in UNWRAP_METHODS and not node.args:
        inner = src.segment(func.value)
        yield Mutation(
            "call-unwrap",
            0.8,
            (Edit(path, *src.span(node), inner),),
            f"`{short(src.segment(node))}` -> `{short(inner)}`",
        )
    if isinstance(func, ast.Name) and name == "range":
        yield from off_by_one_sites(src, list(node.args), node, "range bound")
    if isinstance(func, ast.Name) and name == "len" and not in_arithmetic(node, parents):
        yield from off_by_one_sites(src, [node], node, "length")
