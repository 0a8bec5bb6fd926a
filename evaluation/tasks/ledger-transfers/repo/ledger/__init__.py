"""A tiny double-entry-ish ledger."""

from ledger.accounts import Entry, InsufficientFunds, Ledger

__all__ = ["Entry", "InsufficientFunds", "Ledger"]
