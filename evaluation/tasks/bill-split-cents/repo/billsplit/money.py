"""Amounts are integers of cents; shares always add up to the total."""

from __future__ import annotations

import math
import re
from typing import Sequence

AMOUNT = re.compile(r"^\d+(\.\d{1,2})?$")


def parse_amount(text: str) -> int:
    """'12.5' -> 1250 cents; a currency sign and thousands commas are allowed."""
    cleaned = text.strip().lstrip("$€£").replace(",", "")
    if not AMOUNT.match(cleaned):
        raise ValueError(f"not an amount: {text!r}")
    return int(float(cleaned) * 100)


def format_cents(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def split_even(total: int, people: int) -> list[int]:
    """Equal shares; the leftover cents go one each to the first people."""
    if people < 1:
        raise ValueError("nobody to split between")
    base, leftover = divmod(total, people)
    return [base + 1 if i < leftover else base for i in range(people)]


def split_weighted(total: int, weights: Sequence[float]) -> list[int]:
    """Shares proportional to weights (largest remainder method)."""
    if not weights or sum(weights) <= 0:
        raise ValueError("weights must be positive")
    exact = [total * w / sum(weights) for w in weights]
    shares = [math.floor(x) for x in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: exact[i] - shares[i], reverse=True)
    for i in by_remainder[: total - sum(shares)]:
        shares[i] += 1
    return shares


def with_tip(total: int, percent: float) -> int:
    return total + round(total * percent / 100)


def split_bill(amount: str, people: int, tip_percent: float = 0) -> list[str]:
    """'18.99' between 3 -> ['6.33', '6.33', '6.33']."""
    return [format_cents(share) for share in split_even(with_tip(parse_amount(amount), tip_percent), people)]
