import pytest

from seating import SeatMap


@pytest.mark.parametrize(("rows", "seats"), [(2, 9), (9, 2), (1, 5), (26, 3), (5, 5)])
def test_every_seat_round_trips_and_is_unique(rows, seats):
    hall = SeatMap(rows, seats)
    indexes = [hall.index_of(f"{chr(65 + r)}{s}") for r in range(rows) for s in range(1, seats + 1)]
    assert indexes == list(range(rows * seats))
    assert [hall.label_of(i) for i in indexes] == [f"{chr(65 + r)}{s}" for r in range(rows) for s in range(1, seats + 1)]


def test_label_of():
    hall = SeatMap(6, 12)
    assert hall.label_of(12) == "B1"
    assert hall.label_of(71) == "F12"


def test_booking_in_a_narrow_hall():
    hall = SeatMap(10, 2)
    hall.book("E2")
    assert not hall.is_free("E2")
    assert hall.free_block(2) == ["A1", "A2"]
    assert len(hall.free_seats()) == 19
    assert "E2" not in hall.free_seats()
