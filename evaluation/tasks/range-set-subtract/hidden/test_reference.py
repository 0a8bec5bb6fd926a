from rangeset import RangeSet


def members(ranges):
    return {value for lo, hi in ranges for value in range(lo, hi)}


def test_remove_matches_set_difference():
    cases = [((0, 10), (3, 6)), ((0, 10), (8, 15)), ((5, 10), (0, 7)), ((0, 10), (9, 10)), ((0, 10), (0, 1))]
    for (lo, hi), (rlo, rhi) in cases:
        ranges = RangeSet([(lo, hi)])
        ranges.remove(rlo, rhi)
        assert members(ranges) == set(range(lo, hi)) - set(range(rlo, rhi)), (lo, hi, rlo, rhi)


def test_remove_keeps_the_point_at_hi():
    ranges = RangeSet([(0, 10)])
    ranges.remove(2, 4)
    assert 4 in ranges
    assert 3 not in ranges and 2 not in ranges


def test_difference_across_several_ranges():
    left = RangeSet([(0, 10), (20, 30)])
    right = RangeSet([(5, 25)])
    assert list(left.difference(right)) == [(0, 5), (25, 30)]
    assert len(left.difference(right)) == 10


def test_union_then_difference_round_trip():
    base = RangeSet([(0, 10)])
    extra = RangeSet([(10, 20)])
    assert base.union(extra).difference(extra) == base
