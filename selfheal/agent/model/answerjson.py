"""The salvage of a model's answer that is not valid JSON as it stands: the JSON inside a fence or
prose, trailing commas dropped, a truncated value closed. Each takes text and gives text (or None)."""

from __future__ import annotations

import json
import re
from typing import Any


def loads(text: str) -> Any:
    """json.loads, where nesting deeper than the decoder's recursion limit is a decoding error too
    (a model's answer of 100,000 open brackets must not end the heal)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("the JSON is nested too deeply", text[:100], 0) from None


_FENCE = re.compile(r"```[ \t]*(?:json5?|jsonc|JSON)?[ \t]*\r?\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_json(text: str, opener: str = "{") -> str | None:
    """The JSON part of an answer: the first ``` fence holding `opener`, then within it (or the
    whole text) the first balanced value that parses, else the longest of the balanced ones and
    an unbalanced tail (a truncated answer). None when there is no `opener`."""
    for fenced in _FENCE.finditer(text):
        if opener in fenced.group(1):
            text = fenced.group(1)
            break
    spans = _balanced_spans(text, opener)
    for start, end in spans:
        if end is not None:
            try:
                loads(text[start:end])
                return text[start:end]
            except json.JSONDecodeError:
                continue
    pieces = [text[start:end] for start, end in spans if end is not None]
    if spans and spans[-1][1] is None:
        pieces.append(text[spans[-1][0] :].rstrip().removesuffix("```").rstrip())
    return max(pieces, key=len) if pieces else None


def _balanced_spans(text: str, opener: str) -> list[tuple[int, int | None]]:
    """Top-level (start, end) spans beginning with `opener`; end None for one never closed."""
    closer = "}" if opener == "{" else "]"
    spans: list[tuple[int, int | None]] = []
    index = text.find(opener)
    while index != -1:
        depth, in_string, escape = 0, False, False
        end = None
        for position in range(index, len(text)):
            char = text[position]
            if in_string:
                if escape:
                    escape = False
                elif char == "\\":
                    escape = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char in "{[":
                depth += 1
            elif char in "}]":
                depth -= 1
                if depth == 0:
                    end = position + 1
                    break
        if end is None or text[end - 1] != closer:
            spans.append((index, None))
            break
        spans.append((index, end))
        index = text.find(opener, end)
    return spans


def drop_trailing_commas(text: str) -> str:
    """Commas right before a `}` or `]` (whitespace between allowed) removed, outside strings."""
    out: list[str] = []
    in_string = escape = False
    for index, char in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif char == "\\":
                escape = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            rest = text[index + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(char)
    return "".join(out)


def close_truncated(text: str) -> str | None:
    """A cut-off JSON value completed: an open string closed, an incomplete last item or key
    dropped, open brackets closed. None when the text is not cut off or cannot be completed."""
    attempt = text.rstrip()
    for _ in range(200):
        stack, in_string, escape, cuts = _scan(attempt)
        if not stack:
            return None
        closed = attempt
        if in_string:
            closed = (closed[:-1] if escape else closed) + '"'
        closed = closed.rstrip().removesuffix(",").rstrip()
        closed += "".join("}" if opener == "{" else "]" for opener in reversed(stack))
        try:
            loads(closed)
            return closed
        except json.JSONDecodeError:
            earlier = [cut for cut in cuts if cut < len(attempt)]
            if not earlier:
                return None
            attempt = attempt[: earlier[-1]].rstrip()
    return None


def _scan(text: str) -> tuple[list[str], bool, bool, list[int]]:
    """Open brackets, whether the text ends inside a string (and right after a backslash), and
    the places an incomplete tail may be cut: before each comma and after each opener."""
    stack: list[str] = []
    cuts: list[int] = []
    in_string = escape = False
    for index, char in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif char == "\\":
                escape = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
            cuts.append(index + 1)
        elif char in "}]":
            if stack:
                stack.pop()
        elif char == ",":
            cuts.append(index)
    return stack, in_string, escape, cuts
