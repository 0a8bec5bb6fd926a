"""Slugs: lower case ASCII letters and digits joined by a separator."""

from __future__ import annotations

import re
import unicodedata
from typing import Container

APOSTROPHES = re.compile(r"['\u2019]")
NON_ALNUM = re.compile(r"[^a-z0-9]+")


def slugify(title: str, max_length: int = 60, separator: str = "-") -> str:
    """'Crème Brûlée: Don't Panic!' -> 'creme-brulee-dont-panic'.

    Slugs never start or end with the separator. Slugs longer than max_length are cut at the
    last separator that fits, so words stay whole.
    """
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    text = APOSTROPHES.sub("", text)
    slug = NON_ALNUM.sub(separator, text).rstrip(separator)
    if len(slug) > max_length:
        cut = slug[: max_length + 1]
        slug = cut.rsplit(separator, 1)[0] if separator in cut else slug[:max_length]
    return slug


def unique_slug(title: str, existing: Container[str], **options) -> str:
    """slugify(title), with -2, -3, ... appended until it is not in `existing`."""
    base = slugify(title, **options) or "untitled"
    slug, number = base, 2
    while slug in existing:
        slug = f"{base}-{number}"
        number += 1
    return slug
