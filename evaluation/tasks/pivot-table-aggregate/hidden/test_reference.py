from pivotal import pivot, totals

ROWS = [
    {"shop": "A", "day": "mon", "sold": 3},
    {"shop": "A", "day": "mon", "sold": 4},
    {"shop": "A", "day": "mon", "sold": 5},
    {"shop": "B", "day": "tue", "sold": 1.5},
    {"shop": "A", "day": "tue", "sold": 2},
    {"shop": "B", "day": "tue", "sold": 2.5},
]


def test_sum_over_many_records():
    assert pivot(ROWS, "shop", "day", "sold") == {"A": {"mon": 12, "tue": 2}, "B": {"mon": 0, "tue": 4.0}}


def test_mean_over_many_records():
    table = pivot(ROWS, "shop", "day", "sold", agg="mean", fill=None)
    assert table == {"A": {"mon": 4.0, "tue": 2.0}, "B": {"mon": None, "tue": 2.0}}


def test_grand_total_equals_sum_of_values():
    _, _, grand = totals(pivot(ROWS, "shop", "day", "sold"))
    assert grand == sum(row["sold"] for row in ROWS)
