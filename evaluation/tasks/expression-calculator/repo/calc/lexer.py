"""Turning expression text into tokens."""

from __future__ import annotations

import re
from typing import NamedTuple

TOKEN = re.compile(r"\s*(?:(?P<number>\d+(?:\.\d*)?|\.\d+)|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|[-+*/%(),]))")


class Token(NamedTuple):
    kind: str  # number, name, op or end
    text: str
    position: int


def tokenize(text: str) -> list[Token]:
    tokens = []
    position = 0
    while position < len(text):
        if text[position:].isspace():
            break
        match = TOKEN.match(text, position)
        if not match:
            raise SyntaxError(f"unexpected character {text[position]!r} at {position}")
        kind = match.lastgroup
        tokens.append(Token(kind, match.group(kind), match.start(kind)))
        position = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens
