from memo import CacheInfo, make_key, memoize


def test_results_are_cached():
    calls = []

    @memoize()
    def double(n):
        calls.append(n)
        return 2 * n

    assert [double(2), double(2), double(3)] == [4, 4, 6]
    assert calls == [2, 3]
    assert double.cache_info() == CacheInfo(1, 2, 2)


def test_maxsize_evicts_least_recently_used():
    @memoize(maxsize=2)
    def ident(n):
        return n

    for n in [1, 2, 1, 3]:
        ident(n)
    ident(1)
    assert ident.cache_info().hits == 2


def test_keyword_order_does_not_matter():
    assert make_key((), {"a": 1, "b": 2}) == make_key((), {"b": 2, "a": 1})


def test_keyword_values_are_part_of_the_key():
    @memoize()
    def greet(name, punctuation="!"):
        return f"Hello {name}{punctuation}"

    assert greet("Ada", punctuation="!") == "Hello Ada!"
    assert greet("Ada", punctuation="?") == "Hello Ada?"


def test_typed_keys():
    assert make_key((1,), {}) == make_key((1.0,), {})
    assert make_key((1,), {}, typed=True) != make_key((1.0,), {}, typed=True)


def test_cache_clear():
    @memoize()
    def f(x):
        return x

    f(1)
    f.cache_clear()
    assert f.cache_info() == CacheInfo(0, 0, 0)
