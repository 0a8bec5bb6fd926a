"""Splitting text into words and sentences."""

from __future__ import annotations

import re

WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased, without punctuation.

    Contractions stay whole: "Don't stop." -> ["don't", "stop"].
    """
    return [match.group().lower() for match in WORD.finditer(text)]


def sentences(text: str) -> list[str]:
    """Sentences of `text`, split after ".", "!" or "?"; pieces without a word are dropped."""
    pieces = SENTENCE_END.split(text.strip())
    return [piece for piece in pieces if WORD.search(piece)]
