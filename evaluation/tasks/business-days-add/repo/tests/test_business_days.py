from datetime import date, datetime

from workdays import add_business_days, business_days_between, due_date, is_business_day

MONDAY = date(2024, 6, 3)
FRIDAY = date(2024, 6, 7)


def test_weekdays_are_business_days():
    assert all(is_business_day(date(2024, 6, d)) for d in range(3, 8))


def test_sunday_is_not():
    assert not is_business_day(date(2024, 6, 9))


def test_adding_within_a_week():
    assert add_business_days(MONDAY, 3) == date(2024, 6, 6)


def test_adding_over_a_weekend():
    assert add_business_days(FRIDAY, 1) == date(2024, 6, 10)


def test_holidays_are_skipped():
    assert add_business_days(MONDAY, 1, holidays={date(2024, 6, 4)}) == date(2024, 6, 5)


def test_business_days_between():
    assert business_days_between(MONDAY, date(2024, 6, 17)) == 10


def test_due_date_after_cutoff():
    assert due_date(datetime(2024, 6, 4, 18, 0), 2) == date(2024, 6, 7)
