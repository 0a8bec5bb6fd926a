import pytest

from pivotal import pivot, totals

SALES = [
    {"region": "north", "quarter": "Q1", "amount": 100},
    {"region": "north", "quarter": "Q2", "amount": 150},
    {"region": "south", "quarter": "Q1", "amount": 80},
    {"region": "south", "quarter": "Q1", "amount": 20},
    {"region": "south", "quarter": "Q2", "amount": 60},
]


def test_one_record_per_cell():
    table = pivot(SALES[:3], "region", "quarter", "amount")
    assert table == {"north": {"Q1": 100, "Q2": 150}, "south": {"Q1": 80, "Q2": 0}}


def test_sum_of_several_records_per_cell():
    table = pivot(SALES, "region", "quarter", "amount")
    assert table["south"] == {"Q1": 100, "Q2": 60}


def test_count():
    table = pivot(SALES, "region", "quarter", "amount", agg="count")
    assert table == {"north": {"Q1": 1, "Q2": 1}, "south": {"Q1": 2, "Q2": 1}}


def test_mean():
    table = pivot(SALES, "region", "quarter", "amount", agg="mean")
    assert table["south"]["Q1"] == 50


def test_unknown_aggregate():
    with pytest.raises(ValueError):
        pivot(SALES, "region", "quarter", "amount", agg="median")


def test_totals():
    table = {"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 4}}
    assert totals(table) == ({"a": 3, "b": 7}, {"x": 4, "y": 6}, 10)
