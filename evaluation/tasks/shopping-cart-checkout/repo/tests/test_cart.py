from decimal import Decimal

import pytest

from shop import Cart, Product

TEA = Product("tea", "Green tea", Decimal("3.50"), "drinks")
MUG = Product("mug", "Mug", Decimal("8.00"))


def test_add_merges_lines():
    cart = Cart()
    cart.add(TEA)
    cart.add(TEA, 2)
    assert cart.quantity_of("tea") == 3
    assert len(cart.lines) == 1


def test_subtotal():
    cart = Cart()
    cart.add(TEA, 2)
    cart.add(MUG)
    assert cart.subtotal == Decimal("15.00")


def test_remove_some():
    cart = Cart()
    cart.add(TEA, 3)
    cart.remove("tea", 2)
    assert cart.quantity_of("tea") == 1


def test_cannot_remove_more_than_present():
    cart = Cart()
    cart.add(TEA)
    with pytest.raises(ValueError):
        cart.remove("tea", 2)
