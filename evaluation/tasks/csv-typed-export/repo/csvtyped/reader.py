"""Reading CSV text into typed records."""

from __future__ import annotations

import csv
import io
from typing import Any, Sequence

from csvtyped.schema import Column, coerce


class ConversionError(ValueError):
    def __init__(self, line: int, column: str, message: str) -> None:
        super().__init__(f"line {line}, {column}: {message}")
        self.line = line
        self.column = column


def read_records(text: str, schema: Sequence[Column]) -> tuple[list[dict[str, Any]], list[ConversionError]]:
    """Typed records and the errors of the rows that could not be converted.

    The header names the columns; columns not in the schema are dropped. Line numbers count the
    header as line 1.
    """
    reader = csv.DictReader(io.StringIO(text))
    missing = [column.name for column in schema if column.name not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"missing columns: {', '.join(missing)}")
    records, errors = [], []
    for line, row in enumerate(reader, start=2):
        record = {}
        for column in schema:
            try:
                record[column.name] = coerce(column, row[column.name] or "")
            except ValueError as exc:
                errors.append(ConversionError(line, column.name, str(exc)))
                break
        else:
            records.append(record)
    return records, errors
