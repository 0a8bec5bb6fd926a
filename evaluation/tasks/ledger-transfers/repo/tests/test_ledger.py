from decimal import Decimal

import pytest

from ledger import InsufficientFunds, Ledger


def make_ledger():
    ledger = Ledger()
    ledger.open("alice")
    ledger.open("bob", overdraft=Decimal("50"))
    ledger.deposit("alice", Decimal("100"))
    return ledger


def test_deposit_and_withdraw():
    ledger = make_ledger()
    ledger.withdraw("alice", Decimal("30"))
    assert ledger.balance("alice") == Decimal("70")


def test_overdraft_limit():
    ledger = make_ledger()
    ledger.withdraw("bob", Decimal("50"))
    with pytest.raises(InsufficientFunds):
        ledger.withdraw("bob", Decimal("0.01"))


def test_transfer_moves_money():
    ledger = make_ledger()
    ledger.transfer("alice", "bob", Decimal("40"))
    assert (ledger.balance("alice"), ledger.balance("bob")) == (Decimal("60"), Decimal("40"))


def test_transfer_refused_without_funds():
    ledger = make_ledger()
    with pytest.raises(InsufficientFunds):
        ledger.transfer("alice", "bob", Decimal("100.01"))
    assert ledger.balance("alice") == Decimal("100")


def test_transfer_within_overdraft():
    ledger = make_ledger()
    ledger.transfer("bob", "alice", Decimal("20"))
    assert ledger.balance("bob") == Decimal("-20")


def test_total_is_conserved_by_transfers():
    ledger = make_ledger()
    ledger.transfer("alice", "bob", Decimal("10"))
    assert ledger.total() == Decimal("100")


def test_statement():
    ledger = make_ledger()
    ledger.transfer("alice", "bob", Decimal("25"))
    assert ledger.statement("alice") == [Decimal("100"), Decimal("-25")]
    assert ledger.statement("bob") == [Decimal("25")]


def test_amounts_must_be_positive():
    with pytest.raises(ValueError):
        make_ledger().deposit("alice", Decimal("0"))
