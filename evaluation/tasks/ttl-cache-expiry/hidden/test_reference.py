import pytest

from ttlcache import TTLCache


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_zero_ttl_entries_do_not_count():
    cache = TTLCache(30, Clock())
    cache.set("a", 1, ttl=0)
    cache.set("b", 2, ttl=0.0)
    assert len(cache) == 0


def test_none_ttl_means_default():
    clock = Clock()
    cache = TTLCache(30, clock)
    cache.set("a", 1, ttl=None)
    clock.now = 29
    assert cache.get("a") == 1


def test_failure_ttl_caches_none_for_a_while():
    clock = Clock()
    cache = TTLCache(60, clock)
    with pytest.raises(KeyError):
        cache.get_or_compute("k", lambda: {}["x"], failure_ttl=5)
    assert cache.get_or_compute("k", lambda: "fresh") is None
    clock.now = 5
    assert cache.get_or_compute("k", lambda: "fresh") == "fresh"


def test_negative_ttl_rejected():
    with pytest.raises(ValueError):
        TTLCache(30, Clock()).set("a", 1, ttl=-1)
