"""A requester's hint (`/heal <free text>`, an issue's title and body) as prompt data.

The text is someone's comment: it may try to instruct the model (edit the tests, print the
environment, push elsewhere). It reaches the debugger and the generator only as data, inside a
`<hint>` fence their prompts declare to be data; it never reaches a shell or the sandbox, and
whatever the model does with it still meets the same verdict (protected tests, no new files).
"""

from __future__ import annotations

import re

MAX_HINT_CHARS = 2000
HIDDEN_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# a tag that would close or open the fence, in any case and spacing
FENCE_TAG = re.compile(r"<\s*/?\s*hint\s*>", re.IGNORECASE)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
NO_HINT = "(none)"


def hint_for_prompt(text: str) -> str:
    """`text` as it may stand inside the prompts' <hint> fence: hidden HTML comments, control and
    invisible characters and fence tags removed, length capped; "(none)" when nothing is left."""
    clean = HIDDEN_COMMENT.sub("", text or "")
    clean = CONTROL.sub("", clean.replace("\r\n", "\n").replace("\r", "\n"))
    clean = FENCE_TAG.sub("[hint tag removed]", clean).strip()
    if len(clean) > MAX_HINT_CHARS:
        clean = clean[:MAX_HINT_CHARS].rstrip() + " [cut]"
    return clean or NO_HINT
