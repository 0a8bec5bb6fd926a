import itertools

import pytest

from shifts import Roster, Shift, merge, uncovered

LINES = ["Dev 08:00-10:00", "Ana 12:00-14:00", "Bo 09:00-11:00", "Cy 15:00-17:30"]


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_gaps_do_not_depend_on_names_or_order(order):
    roster = Roster.from_text("\n".join(LINES[i] for i in order))
    assert roster.gaps("07:00", "18:00") == ["07:00-08:00", "11:00-12:00", "14:00-15:00", "17:30-18:00"]


def test_merge_is_sorted_by_time():
    shifts = [Shift("Aaron", 900, 960), Shift("Zed", 480, 600), Shift("Mia", 590, 700)]
    assert merge(shifts) == [(480, 700), (900, 960)]


def test_hours_covered_counts_overlap_once():
    roster = Roster.from_text("Zoe 08:00-12:00\nAdam 10:00-14:00\nBea 13:00-15:00")
    assert roster.hours_covered() == 7.0


def test_uncovered_with_overnight_shift():
    shifts = [Shift.parse("Zara 22:00-06:00"), Shift.parse("Abe 20:00-23:00")]
    assert uncovered(shifts, 18 * 60, 24 * 60) == [(18 * 60, 20 * 60)]
