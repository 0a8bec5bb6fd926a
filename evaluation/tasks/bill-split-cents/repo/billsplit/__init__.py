"""Split bills fairly, to the cent."""

from billsplit.money import format_cents, parse_amount, split_bill, split_even, split_weighted, with_tip

__all__ = ["format_cents", "parse_amount", "split_bill", "split_even", "split_weighted", "with_tip"]
