"""De-duplicating and grouping address records."""

from __future__ import annotations

from typing import Iterable

from addresses.fields import postcode_district
from addresses.records import Address, clean


def dedupe(records: Iterable[dict[str, str]]) -> list[Address]:
    """Clean every record and keep the first of each address, in input order."""
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for record in records:
        address = clean(record)
        if address.key() not in seen:
            seen.add(address.key())
            unique.append(address)
    return unique


def by_district(records: Iterable[dict[str, str]]) -> dict[str, list[str]]:
    """Labels of the unique addresses grouped by postcode district, districts sorted."""
    groups: dict[str, list[str]] = {}
    for address in dedupe(records):
        groups.setdefault(postcode_district(address.postcode), []).append(address.label())
    return dict(sorted(groups.items()))
