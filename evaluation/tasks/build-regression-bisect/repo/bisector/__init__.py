"""Find the build that introduced a regression, testing as few builds as possible."""

from bisector.search import BisectResult, first_bad

__all__ = ["BisectResult", "first_bad"]
