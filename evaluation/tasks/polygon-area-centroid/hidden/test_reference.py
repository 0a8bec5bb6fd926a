import pytest

from polygons import area, centroid, signed_area


@pytest.mark.parametrize("dx", [-7.5, 0, 2, 10])
@pytest.mark.parametrize("dy", [-3, 0, 1.5])
def test_area_does_not_depend_on_position(dx, dy):
    shape = [(0, 0), (6, 0), (6, 2), (2, 2), (2, 5), (0, 5)]
    moved = [(x + dx, y + dy) for x, y in shape]
    assert area(moved) == pytest.approx(18)


def test_triangle():
    assert area([(1, 1), (5, 2), (2, 6)]) == pytest.approx(9.5)


def test_signed_area_sign():
    triangle = [(2, 2), (6, 2), (4, 5)]
    assert signed_area(triangle) == pytest.approx(6)
    assert signed_area(triangle[::-1]) == pytest.approx(-6)


def test_centroid_of_shifted_rectangle():
    assert centroid([(2, 1), (8, 1), (8, 3), (2, 3)]) == pytest.approx((5, 2))
