"""Closed intervals [start, end] over integers: merging, coverage and gaps."""

from intervals.core import Interval, merge, total_length
from intervals.query import gaps, overlaps

__all__ = ["Interval", "gaps", "merge", "overlaps", "total_length"]
