"""A requester's hint (`/heal <free text>`, an issue's title and body) as prompt data.

The text is someone's comment: it may try to instruct the model (edit the tests, print the
environment, push elsewhere). It reaches the debugger and the generator only as data, inside a
`<hint>` fence their prompts declare to be data; it never reaches a shell or the sandbox, and
whatever the model does with it still meets the same verdict (protected tests, no new files).
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
FENCE_TAG = re.compile(r"<\s*/?\s*(?:" + "|".join(PROMPT_FENCES) + r")\b[^<>]*>", re.IGNORECASE)
# control characters; zero-width and joiners; bidi embeddings, overrides and isolates; the word
# joiner family; the byte order mark; the tag block (U+E0000-E007F), which spells text invisibly
CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\U000e0000-\U000e007f]"
)
NO_HINT = "(none)"


def hint_for_prompt(text: str) -> str:
    """`text` as it may stand inside the prompts' <hint> fence: hidden HTML comments, control and
    invisible characters and fence tags removed, length capped; "(none)" when nothing is left. The
    text is NFKC-normalised first, so a look-alike (`hint` between the fullwidth less-than, solidus
    and greater-than signs) is read as what it looks like and removed with the rest."""
    clean = HIDDEN_COMMENT.sub("", unicodedata.normalize("NFKC", text or ""))
    clean = CONTROL.sub("", clean.replace("\r\n", "\n").replace("\r", "\n"))
    clean = HIDDEN_COMMENT.sub("", clean)  # one the removed characters split
    clean = FENCE_TAG.sub("[hint tag removed]", clean).strip()
    if len(clean) > MAX_HINT_CHARS:
        clean = clean[:MAX_HINT_CHARS].rstrip() + " [cut]"
    return clean or NO_HINT
