"""Nested lists and tuples. Strings, dicts and everything else count as leaves."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

NESTED = (list, tuple)


def flatten(items: Iterable[Any], levels: float = math.inf) -> list[Any]:
    """Remove up to `levels` levels of nesting: flatten([1, [2, [3]]], 1) == [1, 2, [3]].

    The default flattens completely.
    """
    if levels < 0:
        raise ValueError("levels must not be negative")
    result: list[Any] = []
    for item in items:
        if isinstance(item, NESTED) and levels > 0:
            result.extend(flatten(item, levels))
        else:
            result.append(item)
    return result


def depth(item: Any) -> int:
    """0 for a leaf, 1 for a flat list, 1 + the deepest element otherwise; [] has depth 1."""
    if not isinstance(item, NESTED):
        return 0
    return 1 + max((depth(child) for child in item), default=0)


def map_leaves(function: Callable[[Any], Any], item: Any) -> Any:
    """Apply `function` to every leaf, keeping the nesting (tuples stay tuples)."""
    if isinstance(item, tuple):
        return tuple(map_leaves(function, child) for child in item)
    if isinstance(item, list):
        return [map_leaves(function, child) for child in item]
    return function(item)
