from decimal import Decimal

import pytest

from pricing import Discount, Order, price_change_report


def make_order(**kwargs) -> Order:
    order = Order(**kwargs)
    order.add("tea", Decimal("4.50"), 2)
    order.add("mug", Decimal("12.00"))
    return order


def test_subtotal():
    assert make_order().subtotal == Decimal("21.00")


def test_total_with_tax():
    order = make_order(tax_rate=Decimal("20"))
    assert order.tax == Decimal("4.20")
    assert order.total == Decimal("25.20")


def test_tax_is_charged_after_the_discount():
    order = make_order(discount=Discount("fixed", Decimal("1")), tax_rate=Decimal("10"))
    assert order.discount_amount == Decimal("1")
    assert order.tax == Decimal("2.00")
    assert order.total == Decimal("22.00")


def test_quantity_must_be_positive():
    with pytest.raises(ValueError):
        Order().add("tea", Decimal("4.50"), 0)


def test_price_change_report_lists_rises_first():
    old = {"tea": Decimal("4.00"), "mug": Decimal("12.00"), "pot": Decimal("30.00")}
    new = {"tea": Decimal("5.00"), "mug": Decimal("9.00"), "cup": Decimal("3.00")}
    assert price_change_report(old, new) == {"tea": 25.0, "mug": -25.0}


def test_price_change_report_of_unchanged_prices():
    prices = {"tea": Decimal("4.00"), "mug": Decimal("12.00")}
    assert price_change_report(prices, dict(prices)) == {"mug": 0.0, "tea": 0.0}
