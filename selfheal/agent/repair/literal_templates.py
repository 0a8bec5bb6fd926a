"""Literal templates: unit scales, regular expressions, date formats and sibling constants.

A unit scale inverted (`1000.0` -> `0.001`), a regex quantifier made lazy or swapped, two date
fields traded, a constant replaced by a sibling of its enum or standard module.
"""

from __future__ import annotations

import ast
import importlib
import math
import re
import sys
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import Mutation, short

REGEX_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}
DATE_FORMAT_FUNCTIONS = {"strptime", "strftime"}
# standard modules whose import does something visible (opens a browser, prints, needs a display)
UNSAFE_TO_IMPORT = {
    "antigravity",
    "this",
    "turtle",
    "turtledemo",
    "tkinter",
    "idlelib",
    "__hello__",
    "__phello__",
}


# -- unit scales ----------------------------------------------------------------------------


def power_of_ten(value: object) -> bool:
    if type(value) not in (int, float) or value == 0:
        return False
    exponent = math.log10(abs(value))
    return abs(exponent - round(exponent)) < 1e-9 and abs(round(exponent)) >= 2


def inverted_scale(src: SourceFile, node: ast.Constant) -> Iterator[Mutation]:
    """`1000.0` -> `0.001`: a unit conversion that multiplies where it should divide."""
    text = repr(10.0 ** -round(math.log10(abs(node.value))))  # exact: no 1/0.001 = 999.99...
    yield Mutation(
        "literal",
        0.6,
        (Edit(src.path, *src.span(node), text),),
        f"scale {src.segment(node)} -> {text}",
    )


# -- regular expressions, date formats, sibling constants ----------------------------------


def regex_quantifiers(src: SourceFile, node: ast.Constant) -> Iterator[Mutation]:
    """A greedy `.*` that should stop early, or `+` / `*` for one-or-more / zero-or-more."""
    literal = src.segment(node)
    start, _ = src.span(node)
    quote = re.match(r"[rRbBuUfF]*('''|\"\"\"|'|\")", literal)
    if quote is None:
        return
    body_start = quote.end()
    body_end = len(literal) - len(quote.group(1))
    variants: list[tuple[int, int, str, str]] = []  # offset, length, new text, description
    index = body_start
    while index < body_end:
        char = literal[index]
        if char == "\\":
            index += 2
            continue
        if char in "*+":
            lazy = index + 1 < body_end and literal[index + 1] == "?"
            if lazy:
                variants.append((index, 2, char, f"greedy `{char}` instead of lazy `{char}?`"))
            else:
                variants.append((index, 1, char + "?", f"lazy `{char}?` instead of greedy `{char}`"))
            other = "+" if char == "*" else "*"
            variants.append((index, 1, other, f"`{other}` instead of `{char}`"))
        index += 1
    variants.sort(key=lambda v: "lazy" not in v[3])  # stable: lazy ones first, in text order
    for offset, length, text, description in variants[:12]:
        at = start + len(literal[:offset].encode("utf-8"))
        yield Mutation(
            "regex",
            1.0 if "lazy" in description else 0.7,
            (Edit(src.path, at, at + length, text),),
            f"regex {short(literal, 40)}: {description}",
        )


def date_fields(src: SourceFile, node: ast.Constant) -> Iterator[Mutation]:
    """`"%m/%d/%Y"` -> `"%d/%m/%Y"`: two fields of a date format in each other's place."""
    literal = src.segment(node)
    start, _ = src.span(node)
    fields = [m for m in re.finditer(r"%[a-zA-Z]", literal)]
    for i, first in enumerate(fields):
        for j in range(i + 1, len(fields)):
            second = fields[j]
            if first.group() == second.group():
                continue
            at_first = start + len(literal[: first.start()].encode("utf-8"))
            at_second = start + len(literal[: second.start()].encode("utf-8"))
            yield Mutation(
                "format-string",
                1.0 if j == i + 1 else 0.6,
                (
                    Edit(src.path, at_first, at_first + 2, second.group()),
                    Edit(src.path, at_second, at_second + 2, first.group()),
                ),
                f"swap `{first.group()}` and `{second.group()}` in {literal}",
            )


def sibling_constants(src: SourceFile, node: ast.Attribute) -> Iterator[Mutation]:
    """`decimal.ROUND_DOWN` -> `decimal.ROUND_HALF_UP`, `Color.RED` -> `Color.BLUE`."""
    if not (isinstance(node.value, ast.Name) and _constant_name(node.attr)):
        return
    owner = node.value.id
    siblings = _class_constants(src, owner) or _module_constants(src, owner)
    prefix = node.attr.split("_")[0] + "_" if "_" in node.attr else ""
    alternatives = [s for s in siblings if s != node.attr and s.startswith(prefix)]
    start = src.span(node)[1] - len(node.attr.encode())
    for other in alternatives[:10]:
        yield Mutation(
            "constant-swap",
            1.0,
            (Edit(src.path, start, src.span(node)[1], other),),
            f"`{owner}.{node.attr}` -> `{owner}.{other}`",
        )


def _constant_name(name: str) -> bool:
    return name.isupper() and not name.startswith("_")


def _class_constants(src: SourceFile, owner: str) -> list[str]:
    """Upper-case names assigned in the body of a class of this file (an enum's members)."""
    for node in src.tree.body:
        if isinstance(node, ast.ClassDef) and node.name == owner:
            return [
                t.id
                for s in node.body
                if isinstance(s, (ast.Assign, ast.AnnAssign))
                for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
                if isinstance(t, ast.Name) and _constant_name(t.id)
            ]
    return []


def _module_constants(src: SourceFile, owner: str) -> list[str]:
    """Upper-case names of a standard-library module the file imports as `owner`.

    Only the standard library is imported here, on the host: the project's own modules are code
    under repair and run only in the sandbox.
    """
    module_name = None
    for node in src.tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (alias.asname or alias.name) == owner:
                    module_name = alias.name
    if module_name is None:
        return []
    root = module_name.split(".")[0]
    if root not in sys.stdlib_module_names or root in UNSAFE_TO_IMPORT:
        return []
    try:
        module = importlib.import_module(module_name)
    except Exception:  # a module this platform lacks (or fails to import) offers no alternatives
        return []
    return sorted(name for name in dir(module) if _constant_name(name))


def is_re_call(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and (node.func.value.id in ("re", "regex"))
    )
