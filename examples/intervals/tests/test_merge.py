from intervals import Interval, merge, total_length


def test_disjoint_intervals_stay_apart():
    assert merge([Interval(5, 6), Interval(1, 2)]) == [Interval(1, 2), Interval(5, 6)]


def test_overlapping_intervals_merge():
    assert merge([Interval(1, 4), Interval(3, 8)]) == [Interval(1, 8)]


def test_contained_interval_is_absorbed():
    assert merge([Interval(1, 10), Interval(2, 3)]) == [Interval(1, 10)]


def test_touching_intervals_merge():
    assert merge([Interval(1, 3), Interval(3, 5)]) == [Interval(1, 5)]


def test_empty_input():
    assert merge([]) == []


def test_total_length_counts_shared_points_once():
    assert total_length([Interval(1, 3), Interval(3, 5)]) == 5
