import pytest

from billsplit import format_cents, parse_amount, split_bill


@pytest.mark.parametrize("cents", list(range(0, 300)) + [1999, 4.35e2, 12345678, 100000001])
def test_parse_format_round_trip(cents):
    cents = int(cents)
    assert parse_amount(format_cents(cents)) == cents


@pytest.mark.parametrize(("text", "cents"), [("0.29", 29), ("0.57", 57), ("1.15", 115), ("4.35", 435), ("1.1", 110)])
def test_parse_awkward_decimals(text, cents):
    assert parse_amount(text) == cents


def test_split_bill_with_tip():
    assert split_bill("€80.10", 2, tip_percent=10) == ["44.06", "44.05"]
