"""Parse weights such as "1.5 kg", "250g" or "2 lb 3 oz" and convert between units."""

from __future__ import annotations

import re

GRAMS_PER_POUND = 435.59237
GRAMS = {
    "mg": 0.001,
    "g": 1.0,
    "kg": 1000.0,
    "t": 1_000_000.0,
    "oz": GRAMS_PER_POUND / 16,
    "lb": GRAMS_PER_POUND,
    "st": GRAMS_PER_POUND * 14,
}
ALIASES = {
    "gram": "g", "grams": "g", "gr": "g",
    "kilo": "kg", "kilos": "kg", "kilogram": "kg", "kilograms": "kg",
    "lbs": "lb", "pound": "lb", "pounds": "lb",
    "ounce": "oz", "ounces": "oz",
    "stone": "st", "tonne": "t", "tonnes": "t",
}
TERM = re.compile(r"(\d+(?:[.,]\d+)?)\s*([a-zA-Z]+)")


class UnknownUnit(ValueError):
    pass


def unit_name(text: str) -> str:
    unit = text.lower()
    unit = ALIASES.get(unit, unit)
    if unit not in GRAMS:
        raise UnknownUnit(f"unknown unit {text!r}")
    return unit


def parse_mass(text: str) -> list[tuple[float, str]]:
    """Split "2 lb 3 oz" into [(2.0, "lb"), (3.0, "oz")]. A decimal comma is accepted."""
    terms = [(float(number.replace(",", ".")), unit_name(unit)) for number, unit in TERM.findall(text)]
    if not terms or TERM.sub("", text).strip():
        raise ValueError(f"not a weight: {text!r}")
    return terms


def to_grams(text: str) -> float:
    return sum(amount * GRAMS[unit] for amount, unit in parse_mass(text))


def convert(text: str, unit: str, digits: int = 2) -> float:
    """The weight in `text` expressed in `unit`, rounded to `digits` decimals."""
    return round(to_grams(text) / GRAMS[unit_name(unit)], digits)
