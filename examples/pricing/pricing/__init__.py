"""Prices for a small shop: money rounding, discounts, order totals and price-change reports."""

from pricing.discounts import Discount, best_discount
from pricing.money import percent_change, percent_of, round_money
from pricing.order import LineItem, Order, price_change_report

__all__ = [
    "Discount",
    "LineItem",
    "Order",
    "best_discount",
    "percent_change",
    "percent_of",
    "price_change_report",
    "round_money",
]
