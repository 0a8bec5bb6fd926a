"""Ranges of addresses as inclusive (first, last) integer pairs."""

from __future__ import annotations

from typing import Iterable, Iterator

from iprange.addresses import int_to_ip, ip_to_int

FULL = 0xFFFFFFFF


def parse_range(text: str) -> tuple[int, int]:
    """Parse "10.0.0.0/24", "10.0.0.5-10.0.0.9" or a single address "10.0.0.7"."""
    text = text.strip()
    if "/" in text:
        address, _, length = text.partition("/")
        prefix = int(length)
        if not 0 <= prefix <= 32:
            raise ValueError(f"bad prefix length in {text!r}")
        mask = FULL << (32 - prefix) & FULL
        first = ip_to_int(address) & mask
        return first, first | (~mask & FULL)
    if "-" in text:
        left, _, right = text.partition("-")
        first, last = ip_to_int(left), ip_to_int(right)
        if last < first:
            raise ValueError(f"range ends before it starts: {text!r}")
        return first, last
    address = ip_to_int(text)
    return address, address


def aggregate(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge overlapping and adjacent ranges into a sorted, disjoint list."""
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def to_cidrs(first: int, last: int) -> Iterator[str]:
    """The fewest CIDR blocks that cover exactly the addresses first..last."""
    while first <= last:
        # the largest block that starts at `first` and is aligned on its own size
        size = first & -first or 1 << 32
        while first + size - 1 > last:
            size >>= 1
        prefix = 32 - size.bit_length()
        yield f"{int_to_ip(first)}/{prefix}"
        first += size


def summarize(texts: Iterable[str]) -> list[str]:
    """CIDR blocks covering every range in `texts`, merged."""
    blocks: list[str] = []
    for first, last in aggregate(parse_range(text) for text in texts):
        blocks.extend(to_cidrs(first, last))
    return blocks
