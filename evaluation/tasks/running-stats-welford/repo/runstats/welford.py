"""Numerically stable running statistics (Welford's online algorithm)."""

from __future__ import annotations

import math
from typing import Iterable


class RunningStats:
    def __init__(self, values: Iterable[float] = ()) -> None:
        self.count = 0
        self._mean = 0.0
        self._m2 = 0.0  # sum of squared deviations from the mean
        self.minimum = math.inf
        self.maximum = -math.inf
        for value in values:
            self.push(value)

    def push(self, value: float) -> None:
        self.count += 1
        delta = value - self._mean
        self._mean += delta / self.count
        delta2 = value - self._mean
        self._m2 += delta * delta
        self.minimum = min(self.minimum, value)
        self.maximum = max(self.maximum, value)

    def _require(self, at_least: int) -> None:
        if self.count < at_least:
            raise ValueError(f"need at least {at_least} value(s), have {self.count}")

    @property
    def mean(self) -> float:
        self._require(1)
        return self._mean

    def variance(self, sample: bool = True) -> float:
        """Sample variance (divided by n - 1) or, with sample=False, population variance."""
        self._require(2 if sample else 1)
        return self._m2 / (self.count - 1 if sample else self.count)

    def stdev(self, sample: bool = True) -> float:
        return math.sqrt(self.variance(sample))

    def merge(self, other: RunningStats) -> RunningStats:
        """Statistics of both streams together; neither operand changes."""
        merged = RunningStats()
        merged.count = self.count + other.count
        if merged.count == 0:
            return merged
        delta = other._mean - self._mean
        merged._mean = self._mean + delta * other.count / merged.count
        merged._m2 = self._m2 + other._m2 + delta * delta * self.count * other.count / merged.count
        merged.minimum = min(self.minimum, other.minimum)
        merged.maximum = max(self.maximum, other.maximum)
        return merged
