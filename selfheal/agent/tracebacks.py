"""Frames out of a failing test's traceback text (pytest's native, long or short style)."""

from __future__ import annotations

import re
from dataclasses import dataclass

NATIVE_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)', re.M)
PYTEST_FRAME = re.compile(r"^(?P<file>[^\s:]+\.py):(?P<line>\d+):(?: in (?P<func>\S+))?", re.M)
EXCEPTION_LINE = re.compile(
    r"^(?:E\s+)?(?P<type>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Timeout|Interrupt|Warning|Iteration|Failed))\b",
    re.M,
)


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


def exception_type(message: str, details: str = "") -> str:
    """The exception's type name as pytest reported it, or "" when none is visible."""
    for text in (message, details):
        head = text.strip().splitlines()[0] if text.strip() else ""
        match = re.match(r"^(?P<type>[A-Za-z_][\w.]*)(?::|$)", head)
        if match and (match["type"][0].isupper()):
            return match["type"].rsplit(".", 1)[-1]
    found = EXCEPTION_LINE.findall(details)
    return found[-1].rsplit(".", 1)[-1] if found else ""
