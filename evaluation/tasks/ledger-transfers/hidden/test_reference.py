from decimal import Decimal

import pytest

from ledger import InsufficientFunds, Ledger


def test_balances_match_statements_after_many_transfers():
    ledger = Ledger()
    for name in "abc":
        ledger.open(name, overdraft=Decimal("10"))
    ledger.deposit("a", Decimal("50"))
    ledger.transfer("a", "b", Decimal("30"))
    ledger.transfer("b", "c", Decimal("35"))
    ledger.transfer("c", "a", Decimal("5"))
    assert [ledger.balance(n) for n in "abc"] == [Decimal("25"), Decimal("-5"), Decimal("30")]
    for name in "abc":
        assert sum(ledger.statement(name), Decimal("0")) == ledger.balance(name)


def test_second_transfer_respects_the_reduced_balance():
    ledger = Ledger()
    ledger.open("a")
    ledger.open("b")
    ledger.deposit("a", Decimal("10"))
    ledger.transfer("a", "b", Decimal("6"))
    with pytest.raises(InsufficientFunds):
        ledger.transfer("a", "b", Decimal("6"))
    ledger.transfer("b", "a", Decimal("6"))
    assert ledger.balance("b") == 0
