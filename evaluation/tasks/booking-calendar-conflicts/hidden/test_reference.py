from datetime import datetime

import pytest

from booking import Booking, BookingConflict, Calendar


def at(hour, minute=0):
    return datetime(2024, 3, 4, hour, minute)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((9, 10), (10, 11), False),
        ((10, 11), (9, 10), False),
        ((9, 11), (10, 12), True),
        ((10, 12), (9, 11), True),
        ((9, 12), (10, 11), True),
        ((10, 11), (9, 12), True),
        ((9, 10), (9, 10), True),
        ((9, 10), (11, 12), False),
    ],
)
def test_overlap_is_symmetric_and_half_open(a, b, expected):
    first = Booking(at(a[0]), at(a[1]), "Orion")
    second = Booking(at(b[0]), at(b[1]), "Orion")
    assert first.overlaps(second) is expected
    assert second.overlaps(first) is expected


def test_booking_just_before_an_existing_one_is_allowed():
    calendar = Calendar()
    calendar.book(Booking(at(10), at(11), "Orion"))
    calendar.book(Booking(at(9), at(10), "Orion"))
    calendar.book(Booking(at(11), at(12), "Orion"))
    assert len(calendar) == 3


def test_one_minute_overlap_still_clashes():
    calendar = Calendar()
    calendar.book(Booking(at(9), at(10), "Orion"))
    with pytest.raises(BookingConflict):
        calendar.book(Booking(at(9, 59), at(11), "Orion"))
    with pytest.raises(BookingConflict):
        calendar.book(Booking(at(8), at(9, 1), "Orion"))


def test_fully_booked_day_has_no_free_slots():
    calendar = Calendar()
    for hour in range(8, 18):
        calendar.book(Booking(at(hour), at(hour + 1), "Orion"))
    assert calendar.free_slots("Orion", at(8), at(18)) == []
