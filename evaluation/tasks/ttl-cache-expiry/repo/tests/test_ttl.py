import pytest

from ttlcache import TTLCache


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_entry_lives_for_its_ttl():
    clock = Clock()
    cache = TTLCache(10, clock)
    cache.set("a", 1)
    clock.now = 109.9
    assert cache.get("a") == 1
    clock.now = 110
    assert cache.get("a") is None


def test_per_entry_ttl():
    clock = Clock()
    cache = TTLCache(10, clock)
    cache.set("short", 1, ttl=2)
    clock.now = 103
    assert cache.get("short", "gone") == "gone"


def test_len_purges():
    clock = Clock()
    cache = TTLCache(5, clock)
    cache.set("a", 1)
    cache.set("b", 2, ttl=50)
    clock.now = 120
    assert len(cache) == 1


def test_zero_ttl_is_not_cached():
    cache = TTLCache(60, Clock())
    cache.set("a", 1, ttl=0)
    assert cache.get("a") is None


def test_get_or_compute_caches():
    cache = TTLCache(60, Clock())
    calls = []
    for _ in range(3):
        cache.get_or_compute("k", lambda: calls.append(1) or "v")
    assert calls == [1]


def test_failures_are_not_cached_by_default():
    cache = TTLCache(60, Clock())
    with pytest.raises(ZeroDivisionError):
        cache.get_or_compute("k", lambda: 1 / 0)
    assert cache.get_or_compute("k", lambda: "ok") == "ok"


def test_bad_default_ttl():
    with pytest.raises(ValueError):
        TTLCache(0)
