"""Normalise phone numbers to E.164: a '+', the country code, then the national number."""

from __future__ import annotations

import re

COUNTRY_CODES = {"GB": "44", "IE": "353", "FR": "33", "DE": "49", "US": "1", "NL": "31"}
SEPARATORS = re.compile(r"[\s().\-/]")


class InvalidNumber(ValueError):
    pass


def clean(text: str) -> str:
    """Drop spaces, dots, dashes, slashes and brackets; keep digits and a leading '+'."""
    stripped = SEPARATORS.sub("", text.strip())
    if stripped.startswith("+"):
        body = stripped[1:]
        prefix = "+"
    else:
        body = stripped
        prefix = ""
    if not body.isdigit():
        raise InvalidNumber(f"unexpected characters in {text!r}")
    return prefix + body


def to_e164(text: str, default_country: str = "GB") -> str:
    """Normalise `text` to E.164.

    "+44 20 7946 0018" and "0044 20 7946 0018" are already international; "020 7946 0018"
    is national with a trunk '0' that is dropped for the default country's code; a number
    without any prefix (as in the US) just gets the country code.
    """
    number = clean(text)
    country = COUNTRY_CODES[default_country]
    if number.startswith("+"):
        digits = number[1:]
    elif number.startswith("0"):
        digits = country + number[1:]
    elif number.startswith("00"):
        digits = number[2:]
    else:
        digits = country + number
    if not 8 <= len(digits) <= 15:
        raise InvalidNumber(f"wrong length for a phone number: {text!r}")
    return "+" + digits


def same_number(a: str, b: str, default_country: str = "GB") -> bool:
    return to_e164(a, default_country) == to_e164(b, default_country)


def format_international(text: str, default_country: str = "GB") -> str:
    """"+44 2079460018" style: the country code, a space, then the national number."""
    e164 = to_e164(text, default_country)
    for code in sorted(COUNTRY_CODES.values(), key=len, reverse=True):
        if e164[1:].startswith(code):
            return f"+{code} {e164[1 + len(code):]}"
    return e164
