"""Accounts with balances in Decimal and an optional overdraft limit."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Optional


class InsufficientFunds(Exception):
    pass


@dataclass(frozen=True)
class Entry:
    kind: str  # deposit, withdrawal or transfer
    amount: Decimal
    source: Optional[str] = None
    target: Optional[str] = None


class Ledger:
    def __init__(self) -> None:
        self._balances: dict[str, Decimal] = {}
        self._limits: dict[str, Decimal] = {}
        self.history: list[Entry] = []

    def open(self, account: str, overdraft: Decimal = Decimal("0")) -> None:
        if account in self._balances:
            raise ValueError(f"account {account} exists")
        self._balances[account] = Decimal("0")
        self._limits[account] = overdraft

    def balance(self, account: str) -> Decimal:
        return self._balances[account]

    def _check_amount(self, amount: Decimal) -> None:
        if amount <= 0:
            raise ValueError("amounts must be positive")

    def _check_funds(self, account: str, amount: Decimal) -> None:
        if self._balances[account] - amount < -self._limits[account]:
            raise InsufficientFunds(f"{account} cannot pay {amount}")

    def deposit(self, account: str, amount: Decimal) -> None:
        self._check_amount(amount)
        self._balances[account] += amount
        self.history.append(Entry("deposit", amount, target=account))

    def withdraw(self, account: str, amount: Decimal) -> None:
        self._check_amount(amount)
        self._check_funds(account, amount)
        self._balances[account] -= amount
        self.history.append(Entry("withdrawal", amount, source=account))

    def transfer(self, source: str, target: str, amount: Decimal) -> None:
        """Move `amount` from source to target, within the source's overdraft limit."""
        self._check_amount(amount)
        if target not in self._balances:
            raise KeyError(target)
        self._check_funds(source, amount)
        self._balances[source] += amount
        self._balances[target] -= amount
        self.history.append(Entry("transfer", amount, source=source, target=target))

    def statement(self, account: str) -> list[Decimal]:
        """Signed amounts of every entry touching the account, oldest first."""
        lines = []
        for entry in self.history:
            if entry.target == account:
                lines.append(entry.amount)
            elif entry.source == account:
                lines.append(-entry.amount)
        return lines

    def total(self) -> Decimal:
        return sum(self._balances.values(), Decimal("0"))
