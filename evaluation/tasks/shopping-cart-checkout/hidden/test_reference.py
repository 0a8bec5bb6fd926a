from decimal import Decimal

import pytest

from shop import Cart, Product, checkout

TEA = Product("tea", "Green tea", Decimal("3.50"), "drinks")
MUG = Product("mug", "Mug", Decimal("8.00"))


def test_removing_everything_empties_the_cart():
    cart = Cart()
    cart.add(TEA, 2)
    cart.remove("tea")
    cart.remove("tea")
    assert cart.lines == []
    assert cart.quantity_of("tea") == 0
    with pytest.raises(KeyError):
        cart.remove("tea")


def test_re_adding_after_removal_starts_a_new_line_at_the_end():
    cart = Cart()
    cart.add(TEA)
    cart.add(MUG)
    cart.remove("tea")
    cart.add(TEA, 2)
    assert checkout(cart).lines == ["1 x Mug @ 8.00", "2 x Green tea @ 3.50"]


def test_partial_removal_keeps_the_line():
    cart = Cart()
    cart.add(TEA, 3)
    cart.remove("tea", 2)
    assert [line.quantity for line in cart.lines] == [1]
