"""Text selfheal did not write, made inert before it enters a comment or a pull-request body.

Test ids, file names, exception messages and model answers reach what selfheal posts. selfheal
recognises its own comments by hidden HTML comments (`<!-- selfheal ... -->`), so a test id that
carries one could pass for selfheal's word: an HTML comment's delimiters in such text are written
as entities, which GitHub shows as the characters and never parses as a comment.
"""

from __future__ import annotations

MARKER = "<!-- selfheal -->"  # in every comment selfheal writes; such comments are never commands


def inert(text: str) -> str:
    return text.replace("<!--", "&lt;!--").replace("--!>", "--!&gt;").replace("-->", "--&gt;")


def after_marker(marker: str, body: str) -> str:
    """`body` that begins with selfheal's own `marker`: the marker kept, the rest made inert."""
    if body.startswith(marker):
        return marker + inert(body[len(marker) :])
    return inert(body)
