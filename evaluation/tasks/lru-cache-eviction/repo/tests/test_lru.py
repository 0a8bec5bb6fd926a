import pytest

from lrucache import LRUCache, cached


def test_put_and_get():
    cache = LRUCache(2)
    cache.put("a", 1)
    assert cache.get("a") == 1
    assert cache.get("zz", "none") == "none"
    assert (cache.stats.hits, cache.stats.misses) == (1, 1)


def test_oldest_entry_is_evicted():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert "a" not in cache and cache.keys() == ["b", "c"]
    assert cache.stats.evictions == 1


def test_updating_an_entry_keeps_it():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert cache.keys() == ["a", "c"]
    assert cache.get("a") == 10


def test_reading_an_entry_keeps_it():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.keys() == ["a", "c"]


def test_hot_key_survives_get_or_load():
    cache = LRUCache(3)
    loads = []
    for key in ["hot", "x", "hot", "y", "hot", "z", "hot"]:
        cache.get_or_load(key, lambda k: loads.append(k) or k.upper())
    assert loads == ["hot", "x", "y", "z"]


def test_bad_capacity():
    with pytest.raises(ValueError):
        LRUCache(0)


def test_decorator():
    calls = []

    @cached(2)
    def square(n):
        calls.append(n)
        return n * n

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert calls == [3, 4]
