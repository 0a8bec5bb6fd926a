"""Sentence splitting for English prose."""

from sentences.split import sentence_lengths, split_sentences

__all__ = ["sentence_lengths", "split_sentences"]
