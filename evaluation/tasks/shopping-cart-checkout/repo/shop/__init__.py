"""A small shop: catalog, cart, promotions, checkout."""

from shop.cart import Cart, Line
from shop.catalog import Product
from shop.checkout import EmptyCart, Receipt, checkout
from shop.promotions import BuyXGetY, CategoryPercentOff

__all__ = ["BuyXGetY", "Cart", "CategoryPercentOff", "EmptyCart", "Line", "Product", "Receipt", "checkout"]
