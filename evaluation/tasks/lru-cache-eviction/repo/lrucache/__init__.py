"""Least-recently-used caching."""

from lrucache.cache import CacheStats, LRUCache, cached

__all__ = ["CacheStats", "LRUCache", "cached"]
