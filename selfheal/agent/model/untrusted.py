"""Text no one at selfheal wrote, as it may stand in a prompt: one sanitiser for all of it.

A requester's hint (`/heal <free text>`), an issue's title and body, a repository's memory records,
the tests' output and every tool result reach a model only inside fences its prompt declares to be
data (`<hint>`, `<issue>`, `<lessons>`, `<failing>`, ...). Such text may try to close its fence and
open another, in any spelling: `</hint x>`, upper case, the fullwidth less-than and greater-than
signs, or hidden from a
reader in Unicode's tag block or behind bidi controls. Whatever the model then does still meets the
same verdict (protected tests, no new files); the fences keep it from reading as selfheal's words.

- `for_prompt(text)`: prose (hints, issue text, memory lessons, test output): NFKC-normalised
  (not the tests' output), hidden HTML comments, control and invisible characters removed, fence
  tags replaced.
- `fenced(text)`: every value a prompt template takes and every tool result, code included: fence
  tags, in any spelling, replaced, and invisible characters (tag block, bidi controls, zero-width)
  shown as `[U+XXXX]`, as a code review shows Trojan Source; the text is otherwise byte for byte.
- `unshown(answer)`: a model's answer with those `[U+XXXX]` back as the characters, so an edit of
  such code matches the file and leaves the characters where they were.
"""

from __future__ import annotations

import re
import unicodedata

MAX_HINT_CHARS = 2000
HIDDEN_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# the fences the prompts (selfheal/prompts/*.yaml) put data in: a tag of one of them in the text,
# in any case, spacing or with attributes (`</hint x>`), could close its fence or open another
PROMPT_FENCES = (
    "code", "diagnosis", "differences", "docstring", "existing_tests", "failing", "feedback", "fixes",
    "hint", "issue", "lessons", "new_tests", "patch", "round", "suspects",
)  # fmt: skip
# "<", ">" and "/" and what NFKC reads as them (fullwidth, small form variants) or looks like them
_OPEN = "<\uff1c\ufe64\u2039\u2329\u27e8\u3008"
_CLOSE = ">\uff1e\ufe65\u203a\u232a\u27e9\u3009"
_SLASH = "/\uff0f\u2044\u2215"
_NAME = "|".join(PROMPT_FENCES)
FENCE_TAG = re.compile(
    rf"[{_OPEN}]\s*[{_SLASH}]?\s*(?:{_NAME})\b[^{_OPEN}{_CLOSE}\n]*[{_CLOSE}]", re.IGNORECASE
)
# control characters; zero-width and joiners; bidi embeddings, overrides and isolates; the word
# joiner family; the byte order mark; the tag block (U+E0000-E007F), which spells text invisibly
CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\U000e0000-\U000e007f]"
)
# what `fenced` shows rather than removes: invisible to a reader, read by a model; code keeps its
# line breaks, tabs and carriage returns, so the C0 controls stay as they are there
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\U000e0000-\U000e007f]")
_SHOWN = re.compile(r"\[U\+(20[0-6][0-9A-F]|FEFF|E00[0-7][0-9A-F])\]")
NO_HINT = "(none)"


def fenced(text: str) -> str:
    """`text` with every tag of a prompt fence, in any spelling, replaced by a visible note, and
    every invisible character shown as `[U+XXXX]`."""
    text = FENCE_TAG.sub(lambda m: f"[{_tag_name(m.group())} tag removed]", text)
    return INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def unshown(answer: str) -> str:
    """`answer` with each `[U+XXXX]` that `fenced` shows back as its character."""
    return _SHOWN.sub(_back, answer)


def _back(found: re.Match[str]) -> str:
    char = chr(int(found.group(1), 16))
    return char if INVISIBLE.fullmatch(char) else found.group()


def for_prompt(text: str, limit: int | None = None, *, normalize: bool = True) -> str:
    """Prose from outside as a prompt may quote it: NFKC-normalised (a look-alike is read as what
    it looks like), hidden HTML comments, control and invisible characters removed, fence tags
    replaced, at most `limit` characters. `normalize=False` for the tests' own words: an assertion
    about two spellings of one letter must keep both."""
    clean = unicodedata.normalize("NFKC", text or "") if normalize else text or ""
    clean = HIDDEN_COMMENT.sub("", clean)
    clean = CONTROL.sub("", clean.replace("\r\n", "\n").replace("\r", "\n"))
    clean = HIDDEN_COMMENT.sub("", clean)  # one the removed characters split
    clean = fenced(clean).strip()
    if limit is not None and len(clean) > limit:
        clean = clean[:limit].rstrip() + " [cut]"
    return clean


def hint_for_prompt(text: str) -> str:
    """A requester's hint as it may stand inside the prompts' <hint> fence; "(none)" when nothing
    is left."""
    return for_prompt(text, MAX_HINT_CHARS) or NO_HINT


def _tag_name(tag: str) -> str:
    found = re.search(_NAME, tag, re.IGNORECASE)
    return found.group().lower() if found else "fence"
