"""Numeric measures of a text. Every average of an empty text is 0.0, never an error."""

from __future__ import annotations

from collections import Counter

from textstats.tokenize import sentences, words


def word_frequencies(text: str) -> Counter[str]:
    """How often each (lower-cased) word occurs."""
    return Counter(words(text))


def average_word_length(text: str) -> float:
    """Mean number of characters per word, to two decimals."""
    found = words(text)
    return round(sum(len(word) for word in found) / len(found), 2)


def average_sentence_length(text: str) -> float:
    """Mean number of words per sentence, to two decimals."""
    found = sentences(text)
    if not found:
        return 0.0
    return round(sum(len(words(sentence)) for sentence in found) / len(found), 2)


def lexical_diversity(text: str) -> float:
    """Distinct words divided by all words (1.0 when no word repeats), to three decimals."""
    found = words(text)
    if not found:
        return 0.0
    return round(len(set(found)) / len(found), 3)
