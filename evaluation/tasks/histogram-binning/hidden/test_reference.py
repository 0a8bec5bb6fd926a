import pytest

from histo import bin_index, histogram


@pytest.mark.parametrize("bins", [1, 2, 3, 7, 10])
def test_upper_bound_is_in_the_last_bin(bins):
    assert bin_index(1.0, 0.0, 1.0, bins) == bins - 1
    assert bin_index(0.0, 0.0, 1.0, bins) == 0


def test_counts_add_up():
    values = [0.5, 1, 1.5, 2, 9.99, 10]
    counts = histogram(values, bins=5)
    assert sum(counts) == len(values)
    assert counts[-1] == 2


def test_single_bin():
    assert histogram([3, 4, 5], bins=1) == [3]


def test_constant_data():
    assert histogram([2, 2, 2], bins=3) == [3, 0, 0]
