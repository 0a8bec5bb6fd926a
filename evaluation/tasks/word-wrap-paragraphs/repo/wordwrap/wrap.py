"""Greedy word wrapping."""

from __future__ import annotations

import re


def wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` characters; words are separated by one space.

    Words are never split, except a word longer than the width, which is cut into pieces
    of `width` characters.
    """
    if width < 1:
        raise ValueError("width must be positive")
    lines: list[str] = []
    line = ""
    for word in text.split():
        while len(word) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:width])
            word = word[width:]
        if not word:
            continue
        if not line:
            line = word
        elif len(line) + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def fill(text: str, width: int, indent: str = "") -> str:
    """Wrap and join, every line prefixed with `indent` (which counts towards the width)."""
    return "\n".join(indent + line for line in wrap(text, width - len(indent)))


def wrap_paragraphs(text: str, width: int) -> str:
    """Fill every paragraph (separated by blank lines) on its own; keep one blank line between."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    return "\n\n".join(fill(paragraph, width) for paragraph in paragraphs)
