"""The `/heal` comment command. Comment text is data: it is parsed here into a typed value and never
reaches a shell; hidden HTML comments are removed before anything reads it."""

from __future__ import annotations

import re
from dataclasses import dataclass

HIDDEN_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
COMMAND = "/heal"
# A test id or path: what pytest accepts on its command line, nothing that looks like an option.
TARGET = re.compile(r"^(?![-/])[\w./\-\[\]:,=+@%]+$")  # relative: no option, no absolute path
MAX_TARGETS = 20
MAX_TARGET_CHARS = 300  # a test id longer than this is not one (and one argv string is capped at 128 KiB)
# Markdown's line endings (CommonMark): a lone \r ends a line too, so a word after it is not on
# the command's line.
LINE_END = re.compile(r"\r\n|\r|\n")
# A line indented this much at the start of a comment is an indented code block in Markdown: shown
# as code, so not a command (as a fenced block, an inline code span or a quote is not one).
CODE_INDENT = re.compile(r"^(?: {4}|\t| {0,3}\t)")
MAX_CONTEXT_CHARS = 4000
MAX_HINT_CHARS = 1000


@dataclass(frozen=True)
class HealCommand:
    dry_run: bool = False
    approve: bool = False
    targets: tuple[str, ...] = ()
    context: str = ""  # the rest of the comment, for a model; never executed
    ignored: tuple[str, ...] = ()  # words after /heal that are neither an option nor a test
    hint: str = ""  # those words as written: free text for a model (`/heal the parser drops …`)


def strip_hidden(text: str) -> str:
    return HIDDEN_COMMENT.sub("", text or "")


def parse_command(body: str) -> HealCommand | None:
    """The command in a comment body, or None when the comment is not a `/heal` command.

    `/heal` must open the comment (blank lines before it aside), as its own word, in plain text:
    not inside a code block or span, a quote, nor indented as code; look-alike characters (a
    zero-width space, fullwidth letters, a Cyrillic e, U+0435) do not make it. Words on its line are
    options (`dry-run`, `approve`) or test targets (`tests/test_x.py`, `tests/test_x.py::test_y`):
    a target names a test file or folder (ends in `.py` or `/`) or a test id (has `::`). Every other
    word is free text, kept in order as `hint` for the model (`/heal the parser drops the last field`).
    """
    lines = LINE_END.split(strip_hidden(body))
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines or CODE_INDENT.match(lines[0]):
        return None
    first, rest = lines[0], "\n".join(lines[1:])
    words = first.split()
    if not words or words[0] != COMMAND:
        return None
    dry_run = approve = False
    targets: list[str] = []
    ignored: list[str] = []
    for word in words[1:]:
        option = word.lower().lstrip("-")
        if option in ("dry-run", "dryrun", "dry_run"):
            dry_run = True
        elif option == "approve":
            approve = True
        elif _is_target(word) and len(targets) < MAX_TARGETS:
            targets.append(word)
        else:
            ignored.append(word[:40])
    return HealCommand(
        dry_run=dry_run,
        approve=approve,
        targets=tuple(dict.fromkeys(targets)),
        context=rest.strip()[:MAX_CONTEXT_CHARS],
        ignored=tuple(ignored),
        hint=" ".join(word for word in words[1:] if _is_free_text(word))[:MAX_HINT_CHARS],
    )


def _is_free_text(word: str) -> bool:
    option = word.lower().lstrip("-")
    return option not in ("dry-run", "dryrun", "dry_run", "approve") and not _is_target(word)


def _is_target(word: str) -> bool:
    if len(word) > MAX_TARGET_CHARS or not TARGET.match(word) or ".." in word.split("::")[0].split("/"):
        return False
    path = word.split("::")[0]
    return "::" in word or path.endswith(".py") or path.endswith("/")
