"""Cleaning and de-duplicating UK postal addresses."""

from addresses.dedupe import by_district, dedupe
from addresses.fields import normalize_postcode, normalize_street, postcode_district
from addresses.records import Address, clean

__all__ = [
    "Address",
    "by_district",
    "clean",
    "dedupe",
    "normalize_postcode",
    "normalize_street",
    "postcode_district",
]
