"""Query strings of URLs and HTML forms."""

from querystr.query import build_query, decode, first, parse_query

__all__ = ["build_query", "decode", "first", "parse_query"]
