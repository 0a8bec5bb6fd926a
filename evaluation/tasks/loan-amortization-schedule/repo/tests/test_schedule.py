from decimal import Decimal

import pytest

from amortize import monthly_payment, monthly_rate, schedule, total_interest


def test_monthly_rate():
    assert monthly_rate(Decimal("6")) == Decimal("0.005")


def test_monthly_payment():
    assert monthly_payment(Decimal("10000"), Decimal("6"), 12) == Decimal("860.66")


def test_zero_interest_loan():
    assert monthly_payment(Decimal("1200"), Decimal("0"), 12) == Decimal("100.00")
    assert total_interest(Decimal("1200"), Decimal("0"), 12) == 0


def test_first_month():
    first = schedule(Decimal("10000"), Decimal("6"), 12)[0]
    assert (first.interest, first.principal, first.balance) == (Decimal("50.00"), Decimal("810.66"), Decimal("9189.34"))


def test_balance_ends_at_zero():
    assert schedule(Decimal("10000"), Decimal("6"), 12)[-1].balance == 0


def test_total_interest():
    assert total_interest(Decimal("10000"), Decimal("6"), 12) == Decimal("327.96")


def test_last_payment_absorbs_rounding():
    last = schedule(Decimal("10000"), Decimal("6"), 12)[-1]
    assert last.payment == Decimal("860.70")


def test_needs_a_month():
    with pytest.raises(ValueError):
        monthly_payment(Decimal("100"), Decimal("5"), 0)
