"""Cache keys built from call arguments."""

from __future__ import annotations

from typing import Any, Hashable

_KWARGS = object()  # separates positional from keyword arguments in a key


def make_key(args: tuple[Any, ...], kwargs: dict[str, Any], typed: bool = False) -> Hashable:
    """A hashable key identifying a call.

    Keyword arguments are order-insensitive: f(a=1, b=2) and f(b=2, a=1) share a key. With
    typed=True, f(1) and f(1.0) get different keys.
    """
    key: tuple[Any, ...] = args
    if kwargs:
        key += (_KWARGS,) + tuple(sorted(kwargs))
    if typed:
        key += tuple(type(arg) for arg in args)
        key += tuple(type(value) for _, value in sorted(kwargs.items()))
    return key
