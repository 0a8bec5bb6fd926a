"""One progress comment per heal, edited in place as stages finish — never a stream of comments.

A comment carries its request's key (the `/heal` comment it answers) in a hidden marker, so a job run
again after a crash or a failed attempt adopts the comment the earlier attempt left at ⏳ and
concludes it, instead of posting a second one."""

from __future__ import annotations

import sys
import time

from selfheal.agent.events import Event, describe_finished
from selfheal.bot.exceptions import BotError
from selfheal.bot.github.client import GitHubClient
from selfheal.bot.github.markup import MARKER, inert

# the steps worth a comment edit; screening events come hundreds per second and are only counted
SHOWN = {"sandbox", "baseline", "flake_check", "localize", "repair", "validate"}
MIN_EDIT_INTERVAL_S = 2.0


class ProgressComment:
    """An EventSink that keeps one comment up to date. GitHub failures here never stop a heal."""

    def __init__(
        self, client: GitHubClient, issue_number: int, title: str, *, key: str = "", author: str | None = None
    ) -> None:
        self.client = client
        self.author = author  # selfheal's login: only its own earlier comment is adopted
        self.issue_number = issue_number
        self.title = title
        self.key = key
        self.lines: list[str] = []
        self.comment_id: int | None = None
        self._last_edit = 0.0
        self._pending = False
        self._failing = False  # an edit failed: only the last one is tried again

    def start(self) -> None:
        try:
            self.comment_id = self._earlier()
            if self.comment_id is None:
                self.comment_id = self.client.comment(self.issue_number, self.render("starting"))
            else:
                self.client.edit_comment(self.issue_number, self.comment_id, self.render("starting"))
        except BotError as exc:  # the heal goes on without a progress comment
            sys.stderr.write(f"selfheal: could not post the progress comment: {exc}\n")
        self._last_edit = time.monotonic()

    def emit(self, event: Event) -> None:
        if event.end is None or event.node not in SHOWN:
            return
        line = describe_finished(event)
        if not line:
            return
        self.lines.append(line)
        self._pending = True
        if self._failing:  # each failed edit costs the client's retries; the heal matters more
            return
        if time.monotonic() - self._last_edit >= MIN_EDIT_INTERVAL_S or event.node == "validate":
            self._edit(self.render("working"))

    def finish(self, conclusion: str) -> None:
        """The last edit: what happened, in place of the running log's header."""
        self._edit(self.render("done", conclusion))

    def render(self, state: str, conclusion: str = "") -> str:
        head = {
            "starting": f"⏳ **selfheal** is healing {self.title}",
            "working": f"⏳ **selfheal** is healing {self.title}",
            "done": f"**selfheal** — {self.title}",
        }[state]
        steps = "\n".join(f"- {inert(line)}" for line in self.lines) or "- preparing the sandbox"
        parts = [MARKER, *([key_marker(self.key)] if self.key else []), inert(head), "", steps]
        if conclusion:
            parts += ["", inert(conclusion)]
        return "\n".join(parts)

    def _earlier(self) -> int | None:
        """The progress comment an earlier attempt of this request left: posted by selfheal's own
        login, with its key. Another app's bot could post the marker too; without the login, a
        new comment is posted rather than one adopted on the marker's word."""
        if not (self.key and self.author):
            return None
        marker = key_marker(self.key)
        found = [c.id for c in self.client.comments(self.issue_number)
                 if c.author == self.author and marker in c.body]  # fmt: skip
        return found[-1] if found else None

    def _edit(self, body: str) -> None:
        if self.comment_id is None:
            return
        try:
            self.client.edit_comment(self.issue_number, self.comment_id, body)
        except BotError as exc:
            if not self._failing:
                sys.stderr.write(f"selfheal: could not update the progress comment: {exc}\n")
            self._failing = True
        else:
            self._failing = False
        self._last_edit = time.monotonic()
        self._pending = False


def key_marker(key: str) -> str:
    return f"<!-- selfheal:progress {key} -->"
