from datetime import date

from recurring import add_months, month_end, next_occurrence, occurrences


def test_month_end():
    assert month_end(2024, 2) == date(2024, 2, 29)
    assert month_end(2023, 2) == date(2023, 2, 28)


def test_add_one_month():
    assert add_months(date(2024, 3, 15), 1) == date(2024, 4, 15)


def test_clamps_to_month_end():
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)


def test_add_months_into_december():
    assert add_months(date(2024, 10, 15), 2) == date(2024, 12, 15)


def test_occurrences_do_not_drift():
    assert occurrences(date(2024, 1, 31), 4) == [date(2024, 1, 31), date(2024, 2, 29), date(2024, 3, 31), date(2024, 4, 30)]


def test_occurrences_across_year_end():
    assert occurrences(date(2024, 11, 5), 3) == [date(2024, 11, 5), date(2024, 12, 5), date(2025, 1, 5)]


def test_next_occurrence():
    assert next_occurrence(date(2024, 1, 20), date(2024, 5, 20)) == date(2024, 6, 20)
    assert next_occurrence(date(2024, 1, 20), date(2024, 5, 19)) == date(2024, 5, 20)
