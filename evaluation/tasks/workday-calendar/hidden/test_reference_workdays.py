from datetime import date

from workdays import WorkCalendar

MONDAY = date(2024, 3, 4)


def test_count_until_sunday():
    assert WorkCalendar().count(MONDAY, date(2024, 3, 10)) == 5


def test_count_with_holiday_at_the_end():
    calendar = WorkCalendar(holidays=[date(2024, 3, 8)])
    assert calendar.count(MONDAY, date(2024, 3, 9)) == 4


def test_empty_and_reversed_ranges():
    calendar = WorkCalendar()
    assert calendar.count(MONDAY, MONDAY) == 0
    assert list(calendar.workdays(date(2024, 3, 9), date(2024, 3, 10))) == []
    assert calendar.count(date(2024, 3, 8), MONDAY) == 0


def test_workdays_starting_on_a_weekend():
    assert list(WorkCalendar().workdays(date(2024, 3, 9), date(2024, 3, 13))) == [
        date(2024, 3, 11),
        date(2024, 3, 12),
    ]


def test_custom_weekend():
    calendar = WorkCalendar(weekend=[4, 5])  # Friday and Saturday off
    assert calendar.count(MONDAY, date(2024, 3, 11)) == 5
