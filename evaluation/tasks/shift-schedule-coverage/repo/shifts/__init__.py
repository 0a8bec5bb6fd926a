"""A small staff rota: who works when, and which opening hours nobody covers."""

from shifts.coverage import merge, uncovered
from shifts.model import Shift
from shifts.roster import Roster
from shifts.times import format_clock, parse_clock

__all__ = ["Roster", "Shift", "format_clock", "merge", "parse_clock", "uncovered"]
