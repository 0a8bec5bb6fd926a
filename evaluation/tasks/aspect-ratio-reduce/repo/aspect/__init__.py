"""Screen and image aspect ratios: reduce, name, and fit sizes to them."""

from aspect.arith import common_divisor, reduce_pair
from aspect.ratio import AspectRatio, fit_within

__all__ = ["AspectRatio", "common_divisor", "fit_within", "reduce_pair"]
