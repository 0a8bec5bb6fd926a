from __future__ import annotations

from dataclasses import dataclass

from aspect.arith import reduce_pair

KNOWN = {(16, 9): "widescreen", (4, 3): "standard", (1, 1): "square", (21, 9): "ultrawide"}


@dataclass(frozen=True)
class AspectRatio:
    width: int
    height: int

    @classmethod
    def of(cls, width: int, height: int) -> AspectRatio:
        return cls(*reduce_pair(width, height))

    @classmethod
    def parse(cls, text: str) -> AspectRatio:
        """'16:9' or '16x9' (any spacing)."""
        left, sep, right = text.replace("x", ":").partition(":")
        if not sep:
            raise ValueError(f"not a ratio: {text!r}")
        return cls.of(int(left), int(right))

    @property
    def name(self) -> str | None:
        return KNOWN.get((self.width, self.height))

    def __str__(self) -> str:
        return f"{self.width}:{self.height}"


def fit_within(ratio: AspectRatio, max_width: int, max_height: int) -> tuple[int, int]:
    """The largest size of this ratio, in whole multiples of it, that fits in the box."""
    scale = min(max_width // ratio.width, max_height // ratio.height)
    if scale == 0:
        raise ValueError(f"{ratio} does not fit in {max_width}x{max_height}")
    return ratio.width * scale, ratio.height * scale
