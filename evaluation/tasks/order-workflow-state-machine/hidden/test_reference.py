from datetime import datetime, timedelta

import pytest

from orderflow import InvalidTransition, Order, Transition

DELIVERED = datetime(2024, 1, 20, 9, 0)


def delivered(at=DELIVERED):
    history = [Transition("cart"), Transition("placed"), Transition("paid"), Transition("shipped")]
    return Order("H", history + [Transition("delivered", at)])


@pytest.mark.parametrize("days", [0, 1, 29, 30])
def test_returns_up_to_the_end_of_the_window(days):
    order = delivered()
    order.advance("returned", DELIVERED + timedelta(days=days))
    assert order.state == "returned"


@pytest.mark.parametrize("late", [timedelta(days=30, seconds=1), timedelta(days=31), timedelta(days=365)])
def test_returns_after_the_window_are_refused(late):
    order = delivered()
    with pytest.raises(InvalidTransition):
        order.advance("returned", DELIVERED + late)
    assert order.state == "delivered"
    assert len(order.history) == 5


def test_return_without_times_is_allowed():
    order = delivered(at=None)
    order.advance("returned", DELIVERED + timedelta(days=90))
    assert order.state == "returned"


def test_return_in_transit_has_no_window():
    order = Order("T", [Transition("cart"), Transition("placed"), Transition("paid"), Transition("shipped", DELIVERED)])
    order.advance("returned", DELIVERED + timedelta(days=90))
    assert order.state == "returned"


def test_restore_copies_the_history():
    saved = [Transition("cart"), Transition("placed", datetime(2024, 5, 1))]
    order = Order("R1", saved)
    order.advance("paid")
    assert [t.state for t in saved] == ["cart", "placed"]
