from __future__ import annotations

from highlight.matches import find_spans, merge_spans


def highlight(text: str, terms: list[str], *, before: str = "<mark>", after: str = "</mark>") -> str:
    """`text` with every occurrence of any of `terms` wrapped in `before`/`after` (overlaps joined)."""
    spans = merge_spans([span for term in terms for span in find_spans(text, term)])
    pieces, cursor = [], 0
    for start, end in spans:
        pieces += [text[cursor:start], before, text[start:end], after]
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def snippet(text: str, term: str, *, width: int = 40) -> str | None:
    """About `width` characters of `text` around the first occurrence of `term`, with "..." where
    text was cut; None when the term does not occur."""
    spans = find_spans(text, term)
    if not spans:
        return None
    start, end = spans[0]
    room = max(0, width - (end - start)) // 2
    left, right = max(0, start - room), min(len(text), end + room)
    return ("..." if left > 0 else "") + text[left:right] + ("..." if right < len(text) else "")
