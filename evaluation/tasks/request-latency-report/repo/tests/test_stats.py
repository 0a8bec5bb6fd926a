import pytest

from latency import percentile, summarize


def test_percentile_nearest_rank():
    values = [15, 20, 35, 40, 50]
    assert percentile(values, 30) == 20
    assert percentile(values, 100) == 50


def test_percentile_of_nothing():
    with pytest.raises(ValueError):
        percentile([], 50)


def test_summarize():
    assert summarize([3.0, 1.0, 2.0]) == {"count": 3, "p50": 2.0, "p95": 3.0, "max": 3.0}
