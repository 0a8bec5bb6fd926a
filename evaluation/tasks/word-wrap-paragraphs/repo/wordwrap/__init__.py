"""Word wrapping for plain-text output."""

from wordwrap.wrap import fill, wrap, wrap_paragraphs

__all__ = ["fill", "wrap", "wrap_paragraphs"]
