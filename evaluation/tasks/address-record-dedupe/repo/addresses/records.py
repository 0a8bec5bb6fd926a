"""Whole address records."""

from __future__ import annotations

import re
from dataclasses import dataclass

from addresses.fields import normalize_postcode, normalize_street, normalize_whitespace

HOUSE_NUMBER = re.compile(r"^(\d+[a-zA-Z]?)\s*,?\s+(.*)$")


@dataclass(frozen=True)
class Address:
    number: str
    street: str
    town: str
    postcode: str

    def key(self) -> tuple[str, str, str]:
        """Two records with the same key are the same address."""
        return (self.number, self.street.lower(), self.postcode)

    def label(self) -> str:
        return f"{self.number} {self.street}, {self.town} {self.postcode}"


def split_number(line: str) -> tuple[str, str]:
    """'12a high st' -> ('12A', 'high st'); lines without a house number give ('', line)."""
    line = normalize_whitespace(line)
    match = HOUSE_NUMBER.match(line)
    if not match:
        return "", line
    return match.group(1).upper(), match.group(2)


def clean(record: dict[str, str]) -> Address:
    """Build an Address from a raw record with keys line1, town and postcode."""
    number, street = split_number(record["line1"])
    return Address(
        number=number,
        street=normalize_street(street),
        town=normalize_whitespace(record.get("town", "")).title(),
        postcode=normalize_postcode(record["postcode"]),
    )
