import statistics

import pytest

from runstats import RunningStats

SERIES = [
    [1.5, 2.5, 2.5, 2.75, 3.25, 4.75],
    [10.0, 10.0, 10.0],
    [1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16],
    [-3, 0, 3, 100, -50],
]


@pytest.mark.parametrize("data", SERIES)
def test_matches_statistics_module(data):
    stats = RunningStats(data)
    assert stats.variance() == pytest.approx(statistics.variance(data), rel=1e-9, abs=1e-9)
    assert stats.variance(sample=False) == pytest.approx(statistics.pvariance(data), rel=1e-9, abs=1e-9)


def test_single_value_has_zero_population_variance():
    assert RunningStats([42.0]).variance(sample=False) == 0.0


@pytest.mark.parametrize("split", [0, 1, 3, 5])
def test_merge_matches_one_stream(split):
    data = SERIES[0] + SERIES[3]
    merged = RunningStats(data[:split]).merge(RunningStats(data[split:]))
    assert merged.variance() == pytest.approx(statistics.variance(data))
