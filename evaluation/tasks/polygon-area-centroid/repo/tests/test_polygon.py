import pytest

from polygons import area, centroid, contains, is_clockwise, perimeter

SQUARE = [(0, 0), (4, 0), (4, 4), (0, 4)]


def test_area_of_square_at_origin():
    assert area(SQUARE) == 16


def test_area_of_shifted_square():
    assert area([(1, 1), (3, 1), (3, 3), (1, 3)]) == 4


def test_orientation():
    assert not is_clockwise([(1, 5), (3, 5), (3, 8)])
    assert is_clockwise([(3, 8), (3, 5), (1, 5)])


def test_perimeter():
    assert perimeter([(0, 0), (3, 0), (0, 4)]) == 12


def test_contains():
    assert contains(SQUARE, (2, 2))
    assert not contains(SQUARE, (5, 2))


def test_too_few_points():
    with pytest.raises(ValueError):
        area([(0, 0), (1, 1)])


def test_centroid_of_square_at_origin():
    assert centroid(SQUARE) == (2, 2)
