"""Every function returns text of at most `width` characters, ellipsis included."""

from __future__ import annotations

ELLIPSIS = "…"


def _check(width: int, ellipsis: str) -> None:
    if width < len(ellipsis):
        raise ValueError(f"width {width} leaves no room for {ellipsis!r}")


def truncate(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """'Hello world' at width 8 -> 'Hello w…'."""
    _check(width, ellipsis)
    if len(text) <= width:
        return text
    return text[: width - len(ellipsis)] + ellipsis


def truncate_words(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """Cut at the last whole word that fits: 'Hello brave world' at width 14 -> 'Hello brave…'.

    A first word longer than the room left is cut like truncate() does.
    """
    _check(width, ellipsis)
    if len(text) <= width:
        return text
    room = width - len(ellipsis)
    cut = text[: room + 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    else:
        cut = cut[:room]
    return cut.rstrip() + ellipsis


def truncate_middle(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """Keep both ends: '/home/user/projects/report.txt' at width 15 -> '/home/u…ort.txt'.

    With an odd number of characters to keep, the head gets the extra one.
    """
    _check(width, ellipsis)
    if len(text) <= width:
        return text
    keep = width - len(ellipsis)
    head = (keep + 1) // 2
    tail = keep // 2
    return text[:head] + ellipsis + text[-tail:]
