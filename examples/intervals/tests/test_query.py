import pytest

from intervals import Interval, gaps, overlaps


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (Interval(1, 3), Interval(3, 5), True),
        (Interval(1, 2), Interval(4, 5), False),
        (Interval(1, 9), Interval(2, 3), True),
    ],
)
def test_overlaps(a, b, expected):
    assert overlaps(a, b) is expected


def test_gaps_between_intervals():
    assert gaps([Interval(2, 3), Interval(6, 7)], 1, 8) == [
        Interval(1, 1),
        Interval(4, 5),
        Interval(8, 8),
    ]


def test_no_gaps_when_covered():
    assert gaps([Interval(0, 10)], 2, 5) == []


def test_parse_rejects_reversed_interval():
    with pytest.raises(ValueError):
        Interval.parse("7-3")


def test_parse():
    assert Interval.parse("3-7") == Interval(3, 7)
