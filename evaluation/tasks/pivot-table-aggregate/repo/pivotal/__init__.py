"""Pivot tables over lists of dicts."""

from pivotal.table import pivot, totals

__all__ = ["pivot", "totals"]
