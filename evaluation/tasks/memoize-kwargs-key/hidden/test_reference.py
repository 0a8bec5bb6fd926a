from memo import make_key, memoize


def test_different_keyword_values_give_different_keys():
    assert make_key((), {"x": 1}) != make_key((), {"x": 2})
    assert make_key((1,), {"scale": 2}) != make_key((1,), {"scale": 3})


def test_keyword_names_matter_too():
    assert make_key((), {"x": 1}) != make_key((), {"y": 1})


def test_positional_and_keyword_calls_are_distinct_keys():
    assert make_key((1,), {}) != make_key((), {"n": 1})


def test_memoized_results_follow_keyword_values():
    calls = []

    @memoize(maxsize=None)
    def power(base, exp=2):
        calls.append((base, exp))
        return base ** exp

    assert [power(2, exp=3), power(2, exp=5), power(2, exp=3), power(2)] == [8, 32, 8, 4]
    assert calls == [(2, 3), (2, 5), (2, 2)]
