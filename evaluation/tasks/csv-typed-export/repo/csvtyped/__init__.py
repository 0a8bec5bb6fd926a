"""Typed records from CSV files."""

from csvtyped.export import to_json
from csvtyped.reader import ConversionError, read_records
from csvtyped.schema import Column, coerce

__all__ = ["Column", "ConversionError", "coerce", "read_records", "to_json"]
