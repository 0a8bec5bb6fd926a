"""Sets of integers stored as sorted, disjoint half-open ranges."""

from rangeset.core import RangeSet

__all__ = ["RangeSet"]
