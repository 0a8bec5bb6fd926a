"""Clean column names for data loaded from spreadsheets."""

from colnames.headers import normalize_headers, rename_rows, snake_case

__all__ = ["normalize_headers", "rename_rows", "snake_case"]
