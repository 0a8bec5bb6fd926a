from datetime import date

from workdays import WorkCalendar

MONDAY = date(2024, 3, 4)


def test_weekend_is_not_a_workday():
    calendar = WorkCalendar()
    assert calendar.is_workday(MONDAY)
    assert not calendar.is_workday(date(2024, 3, 9))


def test_holiday_is_not_a_workday():
    assert not WorkCalendar(holidays=[MONDAY]).is_workday(MONDAY)


def test_next_workday_skips_weekend():
    assert WorkCalendar().next_workday(date(2024, 3, 9)) == date(2024, 3, 11)


def test_workdays_within_one_week():
    days = list(WorkCalendar().workdays(MONDAY, date(2024, 3, 7)))
    assert days == [date(2024, 3, 4), date(2024, 3, 5), date(2024, 3, 6)]


def test_count_a_full_week_ending_on_monday():
    assert WorkCalendar().count(MONDAY, date(2024, 3, 11)) == 5


def test_count_until_a_saturday():
    assert WorkCalendar().count(MONDAY, date(2024, 3, 16)) == 10


def test_add_across_weekend():
    assert WorkCalendar().add(date(2024, 3, 8), 1) == date(2024, 3, 11)
