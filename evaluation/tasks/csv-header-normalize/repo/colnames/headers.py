"""Normalise spreadsheet column headers into unique snake_case identifiers."""

from __future__ import annotations

import keyword
import re
import unicodedata
from typing import Iterable, Sequence

NON_WORD = re.compile(r"[^0-9a-z]+")
CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake_case(header: str) -> str:
    """'Unit Price (EUR)' -> 'unit_price_eur', 'orderId' -> 'order_id', '2nd line' -> 'col_2nd_line'.

    Accents are dropped, a header with nothing usable becomes 'column' and Python keywords
    get a trailing underscore so the names work as attributes.
    """
    text = unicodedata.normalize("NFKD", header).encode("ascii", "ignore").decode()
    text = CAMEL_BOUNDARY.sub("_", text.strip())
    name = NON_WORD.sub("_", text.lower()).strip("_")
    if not name:
        return "column"
    if name[0].isdigit():
        name = "col_" + name
    if keyword.iskeyword(name):
        name += "_"
    return name


def normalize_headers(headers: Iterable[str]) -> list[str]:
    """Snake-case every header and make the names unique.

    The first use of a name is kept as is; repeats are numbered from 2, so three 'Name'
    columns become 'name', 'name_2' and 'name_3'.
    """
    seen: dict[str, int] = {}
    names = []
    for header in headers:
        name = snake_case(header)
        if name in seen:
            seen[name] += 1
            names.append(f"{name}_{seen[name]}")
        else:
            seen[name] = 0
            names.append(name)
    return names


def rename_rows(rows: Sequence[Sequence[str]]) -> list[dict[str, str]]:
    """Rows as read by csv.reader, header first, as dicts keyed by the normalised names."""
    if not rows:
        return []
    names = normalize_headers(rows[0])
    records = []
    for row in rows[1:]:
        if len(row) > len(names):
            raise ValueError(f"row has {len(row)} cells but there are {len(names)} columns")
        padded = list(row) + [""] * (len(names) - len(row))
        records.append(dict(zip(names, padded)))
    return records
