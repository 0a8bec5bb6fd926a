"""Dotted-quad IPv4 addresses as 32-bit integers."""

from __future__ import annotations


def ip_to_int(text: str) -> int:
    """Parse "10.0.0.1" into 167772161."""
    parts = text.strip().split(".")
    if len(parts) != 4:
        raise ValueError(f"not an IPv4 address: {text!r}")
    value = 0
    for part in parts:
        if not part.isdigit() or int(part) > 255:
            raise ValueError(f"not an IPv4 address: {text!r}")
        value = value << 8 | int(part)
    return value


def int_to_ip(value: int) -> str:
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueError(f"out of the IPv4 range: {value}")
    return ".".join(str(value >> shift & 0xFF) for shift in (24, 16, 8, 0))
