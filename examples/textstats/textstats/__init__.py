"""Statistics about plain English text: words, sentences, averages and a summary."""

from textstats.metrics import (
    average_sentence_length,
    average_word_length,
    lexical_diversity,
    word_frequencies,
)
from textstats.report import summary, top_words
from textstats.tokenize import sentences, words

__all__ = [
    "average_sentence_length",
    "average_word_length",
    "lexical_diversity",
    "sentences",
    "summary",
    "top_words",
    "word_frequencies",
    "words",
]
