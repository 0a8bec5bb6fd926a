from decimal import Decimal

import pytest

from pricing import percent_change, percent_of, round_money


def test_round_money_rounds_halves_up():
    assert round_money(Decimal("2.345")) == Decimal("2.35")
    assert round_money(Decimal("2.344")) == Decimal("2.34")


def test_percent_of():
    assert percent_of(Decimal("80"), Decimal("25")) == Decimal("20.00")
    assert percent_of(Decimal("19.99"), Decimal("8.5")) == Decimal("1.70")


def test_percent_change_of_a_price_rise_is_positive():
    assert percent_change(Decimal("50"), Decimal("60")) == 20.0


def test_percent_change_of_a_price_cut_is_negative():
    assert percent_change(Decimal("80"), Decimal("60")) == -25.0


def test_percent_change_of_an_unchanged_price_is_zero():
    assert percent_change(Decimal("9.99"), Decimal("9.99")) == 0.0


def test_percent_change_from_zero_is_an_error():
    with pytest.raises(ValueError):
        percent_change(Decimal("0"), Decimal("5"))
