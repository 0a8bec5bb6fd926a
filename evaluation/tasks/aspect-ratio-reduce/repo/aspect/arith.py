from __future__ import annotations


def common_divisor(a: int, b: int) -> int:
    """Greatest common divisor of two non-negative integers (Euclid); common_divisor(0, 0) == 0."""
    if b == 0:
        return a
    return common_divisor(a % b, b)


def reduce_pair(width: int, height: int) -> tuple[int, int]:
    """`width:height` in lowest terms, e.g. (1920, 1080) -> (16, 9)."""
    if width <= 0 or height <= 0:
        raise ValueError("sizes must be positive")
    divisor = common_divisor(width, height)
    return width // divisor, height // divisor
