"""Memoisation for pure functions."""

from memo.keys import make_key
from memo.memoize import CacheInfo, memoize

__all__ = ["CacheInfo", "make_key", "memoize"]
