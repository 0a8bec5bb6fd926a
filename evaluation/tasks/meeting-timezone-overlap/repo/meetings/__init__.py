"""Plan meetings across time zones."""

from meetings.people import Person
from meetings.planner import common_slots, first_slot
from meetings.zones import format_offset, parse_offset

__all__ = ["Person", "common_slots", "first_slot", "format_offset", "parse_offset"]
