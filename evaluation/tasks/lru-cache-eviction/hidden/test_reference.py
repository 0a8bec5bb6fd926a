from lrucache import LRUCache, cached


def test_recency_order_after_mixed_use():
    cache = LRUCache(4)
    for key in "abcd":
        cache.put(key, key)
    cache.get("b")
    cache.get("a")
    cache.put("c", "C")
    assert cache.keys() == ["d", "b", "a", "c"]


def test_miss_does_not_change_order():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("missing")
    cache.put("c", 3)
    assert cache.keys() == ["b", "c"]


def test_membership_is_not_use():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache
    cache.put("c", 3)
    assert "a" not in cache


def test_decorated_function_keeps_frequent_arguments():
    calls = []

    @cached(2)
    def f(n):
        calls.append(n)
        return n

    for n in [1, 2, 1, 3, 1, 4, 1]:
        f(n)
    assert calls == [1, 2, 3, 4]
