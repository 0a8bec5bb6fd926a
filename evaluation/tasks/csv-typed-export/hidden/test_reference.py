import json
from datetime import date

import pytest

from csvtyped import Column, coerce, read_records, to_json


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("01/02/2024", date(2024, 2, 1)),
        ("31/01/2023", date(2023, 1, 31)),
        ("12/11/2020", date(2020, 11, 12)),
        ("2020-11-12", date(2020, 11, 12)),
    ],
)
def test_day_first_dates(raw, expected):
    assert coerce(Column("d", "date"), raw) == expected


def test_impossible_day_first_date_is_an_error():
    records, errors = read_records("d\n30/02/2024\n", [Column("d", "date")])
    assert records == [] and len(errors) == 1
    assert errors[0].line == 2


def test_export_day_first():
    document = json.loads(to_json("when\n13/01/2025\n", [Column("when", "date")]))
    assert document["records"] == [{"when": "2025-01-13"}]
