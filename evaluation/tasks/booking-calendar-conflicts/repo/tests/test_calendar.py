from datetime import datetime, timedelta

import pytest

from booking import Booking, BookingConflict, Calendar


def at(hour, minute=0):
    return datetime(2024, 3, 4, hour, minute)


def test_booking_must_end_after_start():
    with pytest.raises(ValueError):
        Booking(at(10), at(9), "Orion")


def test_overlapping_booking_is_rejected():
    calendar = Calendar()
    calendar.book(Booking(at(9), at(10), "Orion"))
    with pytest.raises(BookingConflict) as info:
        calendar.book(Booking(at(9, 30), at(11), "Orion"))
    assert len(info.value.clashes) == 1


def test_other_rooms_do_not_clash():
    calendar = Calendar()
    calendar.book(Booking(at(9), at(10), "Orion"))
    calendar.book(Booking(at(9), at(10), "Lyra"))
    assert len(calendar) == 2


def test_back_to_back_bookings_are_allowed():
    calendar = Calendar()
    calendar.book(Booking(at(9), at(10), "Orion"))
    calendar.book(Booking(at(10), at(11), "Orion"))
    assert [b.start for b in calendar.bookings_for("Orion")] == [at(9), at(10)]


def test_free_slots_between_bookings():
    calendar = Calendar()
    calendar.book(Booking(at(13), at(14), "Orion"))
    calendar.book(Booking(at(9), at(10), "Orion"))
    assert calendar.free_slots("Orion", at(8), at(18)) == [
        (at(8), at(9)),
        (at(10), at(13)),
        (at(14), at(18)),
    ]


def test_free_slots_respect_minimum_length():
    calendar = Calendar()
    calendar.book(Booking(at(9), at(10), "Orion"))
    calendar.book(Booking(at(10, 15), at(12), "Orion", "ops"))
    slots = calendar.free_slots("Orion", at(9), at(13), min_length=timedelta(minutes=30))
    assert slots == [(at(12), at(13))]


def test_is_free():
    calendar = Calendar()
    calendar.book(Booking(at(9), at(10), "Orion"))
    assert not calendar.is_free("Orion", at(9, 59))
    assert calendar.is_free("Orion", at(10))
