from decimal import Decimal

import pytest

from pricing import Discount, best_discount


def test_percent_discount():
    assert Discount("percent", Decimal("10")).apply(Decimal("59.90")) == Decimal("53.91")


def test_fixed_discount():
    assert Discount("fixed", Decimal("5")).apply(Decimal("12.50")) == Decimal("7.50")


def test_discount_never_goes_below_zero():
    assert Discount("fixed", Decimal("20")).apply(Decimal("12.50")) == Decimal("0.00")


@pytest.mark.parametrize(
    ("kind", "value"),
    [("coupon", Decimal("5")), ("fixed", Decimal("-1")), ("percent", Decimal("101"))],
)
def test_invalid_discounts_are_rejected(kind, value):
    with pytest.raises(ValueError):
        Discount(kind, value)


def test_best_discount_depends_on_the_price():
    ten_percent = Discount("percent", Decimal("10"))
    five_off = Discount("fixed", Decimal("5"))
    assert best_discount(Decimal("30"), [ten_percent, five_off]) is five_off
    assert best_discount(Decimal("80"), [ten_percent, five_off]) is ten_percent


def test_no_discount_to_choose():
    assert best_discount(Decimal("10"), []) is None
