"""application/x-www-form-urlencoded: pairs joined by '&', key and value joined by '=',
spaces written as '+', every other special character as UTF-8 %XX escapes."""

from __future__ import annotations

from typing import Iterable, Mapping, Optional, Union
from urllib.parse import quote_plus, unquote

Values = Union[str, Iterable[str]]


def decode(component: str) -> str:
    """'caf%C3%A9+au+lait' -> 'café au lait'; '%2B' is a literal '+'."""
    return unquote(component, errors="strict").replace("+", " ")


def parse_query(query: str, keep_blank: bool = False) -> dict[str, list[str]]:
    """{'tag': ['a', 'b']} for 'tag=a&tag=b'; keys keep their first-seen order.

    A leading '?' is ignored. Pairs with an empty value are dropped unless keep_blank is set;
    a key without '=' counts as an empty value.
    """
    result: dict[str, list[str]] = {}
    for pair in query.lstrip("?").split("&"):
        if not pair:
            continue
        raw_key, _, raw_value = pair.partition("=")
        key, value = decode(raw_key), decode(raw_value)
        if value or keep_blank:
            result.setdefault(key, []).append(value)
    return result


def first(query: str, key: str, default: Optional[str] = None) -> Optional[str]:
    values = parse_query(query, keep_blank=True).get(key)
    return values[0] if values else default


def build_query(params: Mapping[str, Values]) -> str:
    """The inverse of parse_query: lists become repeated keys."""
    pairs = []
    for key, values in params.items():
        for value in [values] if isinstance(values, str) else values:
            pairs.append(f"{quote_plus(key)}={quote_plus(value)}")
    return "&".join(pairs)
