import pytest

from billsplit import format_cents, parse_amount, split_bill, split_even, split_weighted, with_tip


def test_parse_amount():
    assert parse_amount("12.5") == 1250
    assert parse_amount("$1,234") == 123400
    assert parse_amount("19.99") == 1999


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse_amount("12.345")


def test_format_cents():
    assert format_cents(1205) == "12.05"
    assert format_cents(-7) == "-0.07"


def test_split_even_gives_leftover_to_first():
    assert split_even(1000, 3) == [334, 333, 333]


def test_split_weighted_adds_up():
    shares = split_weighted(1000, [1, 1, 1])
    assert sum(shares) == 1000 and sorted(shares) == [333, 333, 334]


def test_tip():
    assert with_tip(2000, 12.5) == 2250


def test_split_bill_text():
    assert split_bill("18.99", 3) == ["6.33", "6.33", "6.33"]
