import pytest

from nesting import depth, flatten

DEEP = [0, [1, [2, [3, [4]]]]]


@pytest.mark.parametrize("levels", [0, 1, 2, 3, 4, 5])
def test_each_level_removes_one_level_of_depth(levels):
    assert depth(flatten(DEEP, levels)) == max(1, depth(DEEP) - levels)


def test_flatten_two_levels():
    assert flatten([[1, [2, [3]]], ([4],)], 2) == [1, 2, [3], 4]


def test_flatten_everything_by_default():
    assert flatten(DEEP) == [0, 1, 2, 3, 4]
