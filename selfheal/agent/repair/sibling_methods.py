"""Sibling methods: `obj.m(...)` -> a method of the same class whose name is m's near relative.

Real fixes often call the method next door: `dt.time()` for `dt.timetz()`, `pattern.match` for
`pattern.fullmatch`, `text.split("\\n")`'s cousin `splitlines`, `d.pop` for `d.popitem`. The
curated pairs of `call_operators.METHOD_SWAPS` cannot list them all, so this family reads them off
the classes themselves: every class that defines `m` (the common standard-library types, and the
classes of the file being repaired) offers its other public methods whose names are related to
`m` (one a prefix or suffix of the other, or close in spelling). The receiver's type is not known
statically, so every class that defines `m` is asked; the cap keeps that cheap.
"""

from __future__ import annotations

import ast
import collections
import datetime
import decimal
import difflib
import fractions
import functools
import io
import pathlib
import re
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import Mutation

MAX_SIBLINGS = 3
MIN_STEM = 3  # a prefix or suffix relation only counts from three letters ("time" / "timetz")
CLOSE_SPELLING = 0.75

_STANDARD_TYPES: tuple[type, ...] = (
    str, bytes, bytearray, list, tuple, dict, set, frozenset, int, float, complex,
    collections.deque, collections.OrderedDict, collections.Counter, collections.defaultdict,
    datetime.date, datetime.datetime, datetime.time, datetime.timedelta, datetime.timezone,
    decimal.Decimal, fractions.Fraction, pathlib.PurePath, pathlib.Path,
    re.Pattern, re.Match, io.StringIO, io.BytesIO,
)  # fmt: skip


def _public_methods(cls: type) -> frozenset[str]:
    return frozenset(
        name for name in dir(cls) if not name.startswith("_") and callable(getattr(cls, name, None))
    )


@functools.cache
def _standard_classes() -> tuple[frozenset[str], ...]:
    return tuple(_public_methods(cls) for cls in _STANDARD_TYPES)


KINDS = ("is", "from")  # predicates and alternate constructors only stand in for their own kind


def related(name: str, other: str) -> float:
    """How near two method names are: 1.0 and 0.9 for a prefix and a suffix relation, else the spelling ratio.

    0 when neither holds, or when one is a predicate (`isupper`) or an alternate constructor
    (`fromisoformat`) and the other is not: `s.lower()` is never fixed by `s.islower()`.
    """
    if any(name.startswith(kind) != other.startswith(kind) for kind in KINDS):
        return 0.0
    short, long = sorted((name, other), key=len)
    if len(short) >= MIN_STEM and long.startswith(short):
        return 1.0
    if len(short) >= MIN_STEM and long.endswith(short):
        return 0.9
    ratio = difflib.SequenceMatcher(None, name, other).ratio()
    return ratio if ratio >= CLOSE_SPELLING else 0.0


def siblings(name: str, classes: tuple[frozenset[str], ...], exclude: tuple[str, ...] = ()) -> list[str]:
    """The related methods of every class that defines `name`, nearest first, at most `MAX_SIBLINGS`."""
    scored: dict[str, float] = {}
    for methods in (*classes, *_standard_classes()):
        if name not in methods:
            continue
        for other in methods:
            if other == name or other in exclude:
                continue
            score = related(name, other)
            if score > scored.get(other, 0.0):
                scored[other] = score
    ranked = sorted(scored, key=lambda other: (-scored[other], abs(len(other) - len(name)), other))
    return ranked[:MAX_SIBLINGS]


def sibling_method_mutations(
    src: SourceFile, node: ast.Call, classes: tuple[frozenset[str], ...], exclude: tuple[str, ...]
) -> Iterator[Mutation]:
    func = node.func
    if not isinstance(func, ast.Attribute):
        return
    name = func.attr
    end = src.span(func)[1]
    span = (end - len(name.encode()), end)
    for rank, other in enumerate(siblings(name, classes, exclude)):
        yield Mutation(
            "sibling-method",
            1.0 - 0.2 * rank,
            (Edit(src.path, *span, other),),
            f"`.{name}(...)` -> `.{other}(...)`",
        )
