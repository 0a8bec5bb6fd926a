"""Meeting room bookings: clash detection and free time."""

from booking.calendar import BookingConflict, Calendar
from booking.slots import Booking

__all__ = ["Booking", "BookingConflict", "Calendar"]
