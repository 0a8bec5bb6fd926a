from rangeset import RangeSet


def test_add_merges_overlapping_ranges():
    assert list(RangeSet([(1, 5), (3, 9)])) == [(1, 9)]


def test_add_merges_touching_ranges():
    assert list(RangeSet([(1, 5), (5, 9)])) == [(1, 9)]


def test_disjoint_ranges_stay_sorted():
    assert list(RangeSet([(20, 30), (1, 5)])) == [(1, 5), (20, 30)]


def test_contains_is_half_open():
    ranges = RangeSet([(1, 5)])
    assert 1 in ranges and 4 in ranges
    assert 5 not in ranges


def test_remove_from_the_middle_splits_a_range():
    ranges = RangeSet([(0, 10)])
    ranges.remove(3, 6)
    assert list(ranges) == [(0, 3), (6, 10)]


def test_remove_a_whole_range():
    ranges = RangeSet([(0, 5), (10, 20)])
    ranges.remove(0, 5)
    assert list(ranges) == [(10, 20)]


def test_len_after_remove():
    ranges = RangeSet([(0, 100)])
    ranges.remove(10, 20)
    assert len(ranges) == 90
