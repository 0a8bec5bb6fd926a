"""Read multi-line Python logging output back into records."""

from logrecords.reader import Record, counts_by_level, errors, parse_header, records

__all__ = ["Record", "counts_by_level", "errors", "parse_header", "records"]
