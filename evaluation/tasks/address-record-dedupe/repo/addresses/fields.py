"""Normalising single address fields."""

from __future__ import annotations

import re

ABBREVIATIONS = {
    "st": "Street",
    "rd": "Road",
    "ave": "Avenue",
    "ln": "Lane",
    "dr": "Drive",
    "ct": "Court",
    "sq": "Square",
    "pl": "Place",
}
POSTCODE_CHARS = re.compile(r"^[A-Z0-9]+$")


def normalize_whitespace(text: str) -> str:
    return " ".join(text.split())


def normalize_street(street: str) -> str:
    """'high st.' -> 'High Street'; known abbreviations are expanded, words capitalised."""
    words = []
    for word in normalize_whitespace(street).split(" "):
        bare = word.rstrip(".,")
        words.append(ABBREVIATIONS.get(bare.lower(), bare.capitalize()))
    return " ".join(words)


def normalize_postcode(code: str) -> str:
    """Upper case with a single space before the inward code, the last three characters.

    'sw1a1aa' -> 'SW1A 1AA', 'b33  8th' -> 'B33 8TH'.
    """
    compact = "".join(code.split()).upper()
    if not 5 <= len(compact) <= 7 or not POSTCODE_CHARS.match(compact):
        raise ValueError(f"not a UK postcode: {code!r}")
    return compact[:3] + " " + compact[3:]


def postcode_district(code: str) -> str:
    """The outward code: 'SW1A 1AA' -> 'SW1A'."""
    return normalize_postcode(code).split(" ")[0]
