import bisect

import pytest

from sortedsearch import contains, count_between, insert_sorted, lower_bound

DATA = [[], [5], [1, 2], [1, 1, 1], [0, 2, 4, 6, 8, 10]]


@pytest.mark.parametrize("items", DATA)
def test_lower_bound_matches_bisect_left(items):
    for target in range(-1, 12):
        assert lower_bound(items, target) == bisect.bisect_left(items, target), target


def test_contains_last_item_and_beyond():
    assert contains([1, 2, 3], 3)
    assert not contains([1, 2, 3], 4)


def test_count_between_above_everything():
    assert count_between([1, 2, 3], 4, 10) == 0
    assert count_between([1, 2, 3], 3, 10) == 1


def test_insert_into_empty_and_at_end():
    items = []
    for value in [5, 9, 1, 9, 12]:
        insert_sorted(items, value)
    assert items == [1, 5, 9, 9, 12]
