"""Column types and how raw CSV text is converted to them.

Dates are ISO (2024-03-05) or day-first with slashes (05/03/2024), as exported by European
spreadsheets.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Callable

TRUE_WORDS = {"true", "yes", "y", "1"}
FALSE_WORDS = {"false", "no", "n", "0"}


def to_int(text: str) -> int:
    return int(text.replace("_", "").replace(" ", ""))


def to_float(text: str) -> float:
    """'1,234.5' -> 1234.5 (commas are thousands separators)."""
    return float(text.replace(",", ""))


def to_bool(text: str) -> bool:
    word = text.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"not a yes/no value: {text!r}")


def to_date(text: str) -> date:
    if "/" in text:
        return datetime.strptime(text, "%m/%d/%Y").date()
    return date.fromisoformat(text)


CONVERTERS: dict[str, Callable[[str], Any]] = {
    "str": str,
    "int": to_int,
    "float": to_float,
    "bool": to_bool,
    "date": to_date,
}


@dataclass(frozen=True)
class Column:
    name: str
    type: str = "str"
    required: bool = False

    def __post_init__(self) -> None:
        if self.type not in CONVERTERS:
            raise ValueError(f"unknown column type {self.type!r}")


def coerce(column: Column, raw: str) -> Any:
    """The typed value of one cell; empty cells are None unless the column is required."""
    text = raw.strip()
    if not text:
        if column.required:
            raise ValueError(f"{column.name} is required")
        return None
    return CONVERTERS[column.type](text)
