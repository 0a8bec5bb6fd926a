"""Rule-based sentence splitting.

A sentence ends at '.', '!' or '?' (possibly repeated, possibly followed by a closing quote or
bracket) followed by white space, unless the period ends a known abbreviation or an initial.
"""

from __future__ import annotations

import re

ABBREVIATIONS = {
    "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e",
    "no", "fig", "approx", "dept", "inc", "ltd",
}
BOUNDARY = re.compile(r"[.!?]+[\"')\]]*\s+")


def _is_abbreviation(word: str) -> bool:
    if len(word) == 1 and word.isalpha() and word.isupper():
        return True  # an initial, as in "J. Smith"
    return word in ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in BOUNDARY.finditer(text):
        before = text[start : match.start()].split()
        last_word = before[-1].lstrip("(\"'") if before else ""
        if match.group().startswith(".") and _is_abbreviation(last_word):
            continue
        sentence = text[start : match.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    rest = text[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences


def sentence_lengths(text: str) -> list[int]:
    """Words per sentence."""
    return [len(sentence.split()) for sentence in split_sentences(text)]
