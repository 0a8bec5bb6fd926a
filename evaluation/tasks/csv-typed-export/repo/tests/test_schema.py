from datetime import date

import pytest

from csvtyped import Column, coerce


def test_numbers():
    assert coerce(Column("n", "int"), " 1_000 ") == 1000
    assert coerce(Column("x", "float"), "1,234.5") == 1234.5


def test_bools():
    assert coerce(Column("b", "bool"), "Yes") is True
    assert coerce(Column("b", "bool"), "0") is False
    with pytest.raises(ValueError):
        coerce(Column("b", "bool"), "maybe")


def test_iso_date():
    assert coerce(Column("d", "date"), "2024-03-05") == date(2024, 3, 5)


def test_empty_cells():
    assert coerce(Column("n", "int"), "  ") is None
    with pytest.raises(ValueError):
        coerce(Column("n", "int", required=True), "")


def test_unknown_type():
    with pytest.raises(ValueError):
        Column("n", "decimal")
