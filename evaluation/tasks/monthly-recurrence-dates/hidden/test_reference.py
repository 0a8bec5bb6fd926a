from datetime import date

import pytest

from recurring import add_months, next_occurrence


@pytest.mark.parametrize(
    ("start", "months", "expected"),
    [
        (date(2024, 12, 10), 0, date(2024, 12, 10)),
        (date(2024, 12, 10), 1, date(2025, 1, 10)),
        (date(2024, 11, 30), 1, date(2024, 12, 30)),
        (date(2024, 1, 31), 11, date(2024, 12, 31)),
        (date(2024, 1, 31), 13, date(2025, 2, 28)),
        (date(2024, 3, 31), -1, date(2024, 2, 29)),
        (date(2024, 1, 15), -1, date(2023, 12, 15)),
        (date(2024, 1, 15), -13, date(2022, 12, 15)),
        (date(2020, 6, 1), 30, date(2022, 12, 1)),
    ],
)
def test_add_months(start, months, expected):
    assert add_months(start, months) == expected


def test_every_month_of_a_year():
    assert [add_months(date(2023, 12, 31), i).month for i in range(13)] == [12] + list(range(1, 13))


def test_next_occurrence_in_december():
    assert next_occurrence(date(2023, 8, 31), date(2024, 11, 30)) == date(2024, 12, 31)
