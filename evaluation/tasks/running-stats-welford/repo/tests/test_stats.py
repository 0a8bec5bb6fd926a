import math

import pytest

from runstats import RunningStats

DATA = [2, 4, 4, 4, 5, 5, 7, 9]


def test_mean_min_max():
    stats = RunningStats(DATA)
    assert stats.mean == 5
    assert (stats.minimum, stats.maximum) == (2, 9)
    assert stats.count == 8


def test_empty_stats_raise():
    with pytest.raises(ValueError):
        RunningStats().mean


def test_sample_variance_needs_two_values():
    with pytest.raises(ValueError):
        RunningStats([1.0]).variance()


def test_population_variance():
    assert RunningStats(DATA).variance(sample=False) == pytest.approx(4.0)


def test_sample_stdev():
    assert RunningStats([1, 2, 3, 4]).stdev() == pytest.approx(math.sqrt(5 / 3))


def test_merge_mean_and_count():
    merged = RunningStats(DATA[:3]).merge(RunningStats(DATA[3:]))
    assert merged.count == 8
    assert merged.mean == pytest.approx(5)
    assert merged.maximum == 9
