from decimal import Decimal

import pytest

from amortize import schedule, to_cents, total_interest


@pytest.mark.parametrize(
    ("amount", "expected"),
    [("2.345", "2.35"), ("0.005", "0.01"), ("10.004", "10.00"), ("45.9467", "45.95"), ("7.999", "8.00")],
)
def test_to_cents_rounds_half_up(amount, expected):
    assert to_cents(Decimal(amount)) == Decimal(expected)


def test_interest_column():
    interest = [row.interest for row in schedule(Decimal("10000"), Decimal("6"), 12)]
    assert interest == [Decimal(x) for x in
                        "50.00 45.95 41.87 37.78 33.66 29.53 25.37 21.20 17.00 12.78 8.54 4.28".split()]


def test_mortgage_totals():
    rows = schedule(Decimal("250000"), Decimal("4.5"), 360)
    assert rows[-1].payment == Decimal("1269.32")
    assert total_interest(Decimal("250000"), Decimal("4.5"), 360) == Decimal("206018.21")


def test_short_loan():
    rows = schedule(Decimal("5000"), Decimal("7.25"), 6)
    assert [row.payment for row in rows] == [Decimal("851.04")] * 5 + [Decimal("851.06")]
    assert total_interest(Decimal("5000"), Decimal("7.25"), 6) == Decimal("106.26")
