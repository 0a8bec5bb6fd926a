import pytest

from seating import SeatMap, SeatTaken


def test_square_hall_round_trip():
    hall = SeatMap(4, 4)
    assert hall.index_of("A1") == 0
    assert hall.label_of(hall.index_of("C3")) == "C3"


def test_index_of():
    hall = SeatMap(3, 10)
    assert hall.index_of("B1") == 10
    assert hall.index_of("C10") == 29


@pytest.mark.parametrize("label", ["D1", "A0", "A11", "7", "AA"])
def test_no_such_seat(label):
    with pytest.raises(ValueError):
        SeatMap(3, 10).index_of(label)


def test_double_booking_is_refused():
    hall = SeatMap(5, 5)
    hall.book("B2", "B3")
    with pytest.raises(SeatTaken):
        hall.book("B3", "B4")
    assert hall.is_free("B4")


def test_booking_one_seat_leaves_the_others_free():
    hall = SeatMap(2, 6)
    hall.book("A4")
    assert hall.free_seats() == ["A1", "A2", "A3", "A5", "A6", "B1", "B2", "B3", "B4", "B5", "B6"]


def test_free_block_skips_a_full_row():
    hall = SeatMap(3, 3)
    hall.book("A2")
    assert hall.free_block(3) == ["B1", "B2", "B3"]
