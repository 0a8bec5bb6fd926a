"""Caching with expiry."""

from ttlcache.cache import TTLCache

__all__ = ["TTLCache"]
