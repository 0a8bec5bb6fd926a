"""The memoize decorator."""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, Callable, NamedTuple, Optional

from memo.keys import make_key


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    size: int


def memoize(maxsize: Optional[int] = 128, typed: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Cache results by arguments; with maxsize, the least recently used result goes first."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        results: OrderedDict[Any, Any] = OrderedDict()
        counts = {"hits": 0, "misses": 0}

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = make_key(args, kwargs, typed)
            if key in results:
                counts["hits"] += 1
                results.move_to_end(key)
                return results[key]
            counts["misses"] += 1
            value = function(*args, **kwargs)
            results[key] = value
            if maxsize is not None and len(results) > maxsize:
                results.popitem(last=False)
            return value

        def cache_info() -> CacheInfo:
            return CacheInfo(counts["hits"], counts["misses"], len(results))

        def cache_clear() -> None:
            results.clear()
            counts.update(hits=0, misses=0)

        wrapper.cache_info = cache_info  # type: ignore[attr-defined]
        wrapper.cache_clear = cache_clear  # type: ignore[attr-defined]
        return wrapper

    return decorate
