"""A one-call summary of a text, for dashboards and command-line output."""

from __future__ import annotations

from textstats.metrics import (
    average_sentence_length,
    average_word_length,
    lexical_diversity,
    word_frequencies,
)
from textstats.tokenize import sentences, words


def top_words(text: str, n: int = 3) -> list[tuple[str, int]]:
    """The `n` most frequent words with their counts; ties go to the alphabetically first."""
    counts = word_frequencies(text)
    return sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))[:n]


def summary(text: str) -> dict[str, object]:
    """Counts and averages of `text` in one dictionary."""
    return {
        "words": len(words(text)),
        "sentences": len(sentences(text)),
        "average_word_length": average_word_length(text),
        "average_sentence_length": average_sentence_length(text),
        "lexical_diversity": lexical_diversity(text),
        "top_words": top_words(text),
    }
