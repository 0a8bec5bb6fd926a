from datetime import datetime, timedelta

import pytest

from orderflow import InvalidTransition, Order, Transition

DELIVERED = datetime(2024, 5, 10, 14, 0)


def delivered_order():
    order = Order("D1")
    for state in ["placed", "paid", "shipped"]:
        order.advance(state)
    order.advance("delivered", DELIVERED)
    return order


def test_new_order_is_in_the_cart():
    order = Order("A1")
    assert order.state == "cart"
    assert not order.is_final


def test_happy_path():
    order = delivered_order()
    assert order.state == "delivered"
    assert order.can("returned")


def test_rejected_transition_keeps_the_state():
    order = Order("A3")
    with pytest.raises(InvalidTransition):
        order.advance("shipped")
    assert order.state == "cart"


def test_cancel_before_payment():
    order = Order("A4")
    order.advance("placed")
    order.advance("cancelled")
    assert order.is_final


def test_return_within_the_window():
    order = delivered_order()
    order.advance("returned", DELIVERED + timedelta(days=3))
    order.advance("refunded")
    assert order.is_final


def test_late_return_is_refused():
    order = delivered_order()
    with pytest.raises(InvalidTransition):
        order.advance("returned", DELIVERED + timedelta(days=45))
    assert order.state == "delivered"


def test_restore_from_history():
    saved = [Transition("cart"), Transition("placed", datetime(2024, 5, 1, 9, 30))]
    order = Order("B1", saved)
    assert order.state == "placed"
    assert order.when("placed") == datetime(2024, 5, 1, 9, 30)


def test_history_must_start_in_the_cart():
    with pytest.raises(ValueError):
        Order("B2", [Transition("paid")])
