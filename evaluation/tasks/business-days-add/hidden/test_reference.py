from datetime import date, datetime, timedelta

import pytest

from workdays import add_business_days, business_days_between, due_date, is_business_day


def test_saturday_is_not_a_business_day():
    assert not is_business_day(date(2024, 6, 8))


@pytest.mark.parametrize(
    ("start", "days", "expected"),
    [
        (date(2024, 6, 7), 1, date(2024, 6, 10)),
        (date(2024, 6, 8), 1, date(2024, 6, 10)),
        (date(2024, 6, 5), 5, date(2024, 6, 12)),
        (date(2024, 6, 10), -1, date(2024, 6, 7)),
        (date(2024, 6, 3), 20, date(2024, 7, 1)),
        (date(2024, 6, 8), 0, date(2024, 6, 8)),
    ],
)
def test_add_business_days(start, days, expected):
    assert add_business_days(start, days) == expected


def test_between_is_inverse_of_add():
    start = date(2024, 1, 1)
    for days in range(0, 40):
        assert business_days_between(start, add_business_days(start, days)) == days


def test_due_date_received_on_saturday():
    assert due_date(datetime(2024, 6, 8, 10, 0), 1) == date(2024, 6, 11)
