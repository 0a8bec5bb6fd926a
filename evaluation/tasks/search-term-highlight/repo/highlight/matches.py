from __future__ import annotations


def find_spans(text: str, term: str, *, ignore_case: bool = True) -> list[tuple[int, int]]:
    """(start, end) of every non-overlapping occurrence of `term` in `text`, left to right.

    "aaaa" holds "aa" twice: at 0 and at 2. An empty term matches nothing.
    """
    if not term:
        return []
    haystack, needle = (text.lower(), term.lower()) if ignore_case else (text, term)
    spans = []
    position = haystack.find(needle)
    while position != -1:
        end = position + len(needle)
        spans.append((position, end))
        position = haystack.find(needle, position)
    return spans


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans with the overlapping and touching ones joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
