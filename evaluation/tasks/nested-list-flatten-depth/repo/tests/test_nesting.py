import pytest

from nesting import depth, flatten, map_leaves


def test_flatten_completely():
    assert flatten([1, [2, [3, (4, 5)]], "ab"]) == [1, 2, 3, 4, 5, "ab"]


def test_flatten_one_level():
    assert flatten([1, [2, [3, [4]]]], 1) == [1, 2, [3, [4]]]


def test_flatten_zero_levels_is_a_copy():
    items = [1, [2]]
    assert flatten(items, 0) == items


def test_negative_levels():
    with pytest.raises(ValueError):
        flatten([1], -1)


def test_depth():
    assert depth(5) == 0
    assert depth([]) == 1
    assert depth([1, [2, (3,)]]) == 3


def test_map_leaves():
    assert map_leaves(str, [1, (2, [3])]) == ["1", ("2", ["3"])]
