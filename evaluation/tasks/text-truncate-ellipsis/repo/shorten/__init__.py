"""Shortening text for narrow displays."""

from shorten.truncate import truncate, truncate_middle, truncate_words

__all__ = ["truncate", "truncate_middle", "truncate_words"]
