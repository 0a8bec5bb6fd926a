"""JSON export."""

from __future__ import annotations

import json
from datetime import date
from typing import Any, Sequence

from csvtyped.reader import read_records
from csvtyped.schema import Column


def _default(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def to_json(text: str, schema: Sequence[Column]) -> str:
    """A JSON document {"records": [...], "errors": ["line 3, price: ...", ...]}."""
    records, errors = read_records(text, schema)
    document = {"records": records, "errors": [str(error) for error in errors]}
    return json.dumps(document, default=_default, sort_keys=True)
