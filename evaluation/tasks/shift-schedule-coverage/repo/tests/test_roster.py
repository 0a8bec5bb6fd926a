from shifts import Roster, Shift, merge

ROTA = """
# weekday rota
Ana 08:00-12:00
Ben 11:00-16:00
Cleo 16:00-20:00
"""


def test_merge_joins_overlapping_and_touching_shifts():
    roster = Roster.from_text(ROTA)
    assert merge(roster.shifts) == [(480, 1200)]


def test_overnight_shift():
    shift = Shift.parse("Noor 22:00-06:00")
    assert shift.minutes == 8 * 60
    assert shift.covers(23 * 60) and shift.covers(5 * 60)


def test_staff_at():
    roster = Roster.from_text(ROTA)
    assert roster.staff_at("11:30") == ["Ana", "Ben"]
    assert roster.staff_at("07:00") == []


def test_no_gaps_when_fully_covered():
    assert Roster.from_text(ROTA).gaps() == []


def test_gaps_with_staff_added_out_of_order():
    roster = Roster()
    roster.add("Dev 08:00-10:00")
    roster.add("Ana 12:00-14:00")
    roster.add("Bo 09:00-11:00")
    assert roster.gaps("08:00", "18:00") == ["11:00-12:00", "14:00-18:00"]


def test_hours_covered():
    roster = Roster.from_text("Zoe 08:00-12:00\nAdam 13:00-15:00")
    assert roster.hours_covered() == 6.0


def test_listing_is_by_name():
    roster = Roster.from_text("Zoe 08:00-12:00\nAdam 13:00-15:00")
    assert roster.listing() == ["Adam: 13:00-15:00", "Zoe: 08:00-12:00"]
