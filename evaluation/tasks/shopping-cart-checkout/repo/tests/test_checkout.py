from decimal import Decimal

import pytest

from shop import BuyXGetY, Cart, CategoryPercentOff, EmptyCart, Product, checkout

TEA = Product("tea", "Green tea", Decimal("3.50"), "drinks")
COFFEE = Product("cof", "Coffee", Decimal("6.00"), "drinks")
MUG = Product("mug", "Mug", Decimal("8.00"))


def test_receipt_with_promotions():
    cart = Cart()
    cart.add(TEA, 3)
    cart.add(MUG)
    receipt = checkout(cart, [BuyXGetY("tea", 2, 1)], tax_percent=Decimal("10"))
    assert receipt.subtotal == Decimal("18.50")
    assert receipt.discount == Decimal("3.50")
    assert receipt.tax == Decimal("1.50")
    assert receipt.total == Decimal("16.50")


def test_category_discount():
    cart = Cart()
    cart.add(COFFEE, 2)
    cart.add(MUG)
    assert checkout(cart, [CategoryPercentOff("drinks", Decimal("25"))]).discount == Decimal("3.00")


def test_empty_cart_cannot_check_out():
    with pytest.raises(EmptyCart):
        checkout(Cart())


def test_removed_items_are_not_on_the_receipt():
    cart = Cart()
    cart.add(TEA, 2)
    cart.add(MUG)
    cart.remove("mug")
    assert checkout(cart).lines == ["2 x Green tea @ 3.50"]


def test_cart_emptied_by_removal_cannot_check_out():
    cart = Cart()
    cart.add(MUG, 2)
    cart.remove("mug", 2)
    with pytest.raises(EmptyCart):
        checkout(cart)
