"""Frames out of a failing test's traceback text (pytest's native, long or short style)."""

from __future__ import annotations

import re
from dataclasses import dataclass

NATIVE_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)', re.M)
PYTEST_FRAME = re.compile(r"^(?P<file>[^\s:]+\.py):(?P<line>\d+):(?: in (?P<func>\S+))?", re.M)


@dataclass(frozen=True)
class Frame:
    file: str
    line: int
    function: str


def parse_frames(text: str) -> list[Frame]:
    """Frames in the order printed: outermost first, the raising frame last."""
    native = [Frame(m["file"], int(m["line"]), m["func"]) for m in NATIVE_FRAME.finditer(text)]
    if native:
        return native
    return [Frame(m["file"], int(m["line"]), m["func"] or "") for m in PYTEST_FRAME.finditer(text)]
