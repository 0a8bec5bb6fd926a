"""One-pass summary statistics."""

from runstats.welford import RunningStats

__all__ = ["RunningStats"]
