"""Conversions: a value of the right content but the wrong type, wrapped in the conversion the
failing assertion asks for.

`conversions_asked(messages)` reads pytest's `assert ACTUAL == EXPECTED` lines of the failing tests
and names the conversions that turn the one into the other: `'1.0 byte'` for `'1 byte'` asks for
`int`, `'1.5 bytes'` for `'2 bytes'` for `round`, `2.5` for `'2.5'` for `str`, `[1, 2]` for
`(1, 2)` for `tuple`, `[3, 1]` for `[1, 3]` for `sorted`, `-4` for `4` for `abs`.
`conversion_edits` then wraps each value a suspicious statement computes (a formatted field, a
returned or assigned value, a call's argument) in those conversions. Nothing is proposed when no
assertion asks: blind, the family would multiply every value by half a dozen wrappings. pytest
shortens long values in that line (`[1, 2...', ...]`); those are not read, so a long list's
missing `sorted` goes unasked.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import Mutation, header_nodes, short
from selfheal.agent.repair.value_evidence import assertion_values

MAX_PER_STATEMENT = 6
_DECIMAL = re.compile(r"(?<![\d.])(\d+)\.\d+(?![\d.])")
_WRAPPED = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.BinOp)


def conversions_for(actual: object, expected: object) -> tuple[str, ...]:
    """The conversions that turn the value a test got into the one it expected, most specific first."""
    if actual == expected and type(actual) is type(expected):
        return ()
    found: list[str] = []
    number = (int, float)
    if isinstance(actual, str) and isinstance(expected, str):
        if _DECIMAL.sub(lambda m: m.group(1), actual) == expected:
            found.append("int")
        if _DECIMAL.sub(lambda m: str(round(float(m.group()))), actual) == expected:
            found.append("round")
    elif isinstance(actual, float) and isinstance(expected, int) and not isinstance(expected, bool):
        if int(actual) == expected:
            found.append("int")
        if round(actual) == expected and "round" not in found:
            found.append("round")
    elif isinstance(actual, number) and isinstance(expected, str) and str(actual) == expected:
        found.append("str")
    elif isinstance(actual, str) and isinstance(expected, number) and not isinstance(expected, bool):
        try:
            if int(actual) == expected:
                found.append("int")
        except ValueError:
            pass
        try:
            if float(actual) == expected and "int" not in found:
                found.append("float")
        except ValueError:
            pass
    elif isinstance(actual, int) and isinstance(expected, float) and actual == expected:
        found.append("float")
    if isinstance(actual, number) and isinstance(expected, number) and actual < 0 and -actual == expected:
        found.append("abs")
    if isinstance(actual, (list, tuple, set, frozenset)) and isinstance(expected, (list, tuple)):
        items = list(actual)
        if isinstance(expected, tuple) and items == list(expected) and not isinstance(actual, tuple):
            found.append("tuple")
        if isinstance(expected, list) and items == expected and not isinstance(actual, list):
            found.append("list")
        try:  # a set's order is an accident: sorting it is asked whenever it gives the expected list
            unordered = isinstance(actual, (set, frozenset))
            if sorted(items) == list(expected) and (unordered or items != list(expected)):
                found.append("sorted")
        except TypeError:
            pass
    return tuple(found)


def conversions_asked(messages: dict[str, str]) -> tuple[str, ...]:
    """Every conversion some failing assertion asks for, in the order first asked."""
    asked: list[str] = []
    for message in messages.values():
        sides = assertion_values(message or "")
        if sides is None:
            continue
        for conversion in conversions_for(*sides):
            if conversion not in asked:
                asked.append(conversion)
    return tuple(asked)


def _value_nodes(statement: ast.stmt) -> Iterator[ast.expr]:
    """The values a statement's own line(s) compute that a conversion may wrap, outermost first."""
    valued = (ast.FormattedValue, ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign)
    roots = [statement] if isinstance(statement, valued) else header_nodes(statement)
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, valued) and node.value is not None:
                yield node.value
            elif isinstance(node, ast.Call):
                yield from (a for a in node.args if not isinstance(a, ast.Starred))


def conversion_edits(src: SourceFile, statement: ast.stmt, asked: tuple[str, ...]) -> Iterator[Mutation]:
    """Each value wrapped in each asked conversion; a value written more than once in the statement
    (`f"{n}B" if gnu else f"{n} bytes"`) is first wrapped everywhere at once."""
    if not asked or isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    spans: dict[str, list[tuple[int, int]]] = {}
    for node in _value_nodes(statement):
        if isinstance(node, _WRAPPED) and not _already(node, asked):
            span = src.span(node)
            if span not in spans.setdefault(src.segment(node), []):
                spans[src.segment(node)].append(span)
    choices: list[tuple[str, tuple[tuple[int, int], ...]]] = []
    for text, where in spans.items():
        if len(where) > 1:
            choices.append((text, tuple(where)))
        choices += [(text, (span,)) for span in where]
    count = 0
    for text, where in choices:
        for rank, conversion in enumerate(asked):
            if count >= MAX_PER_STATEMENT:
                return
            count += 1
            every = f" ({len(where)} times)" if len(where) > 1 else ""
            yield Mutation(
                "conversion",
                1.0 - 0.1 * rank,
                tuple(Edit(src.path, *span, f"{conversion}({text})") for span in where),
                f"`{short(text)}` -> `{conversion}({short(text)})`{every}",
            )


def _already(node: ast.expr, asked: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in asked
