"""What selfheal says where it was asked: comments, reactions, the progress comment, a failure told once.

Every body it posts starts with selfheal's marker and has the rest made inert and scrubbed of
secrets; a comment or an emoji that GitHub refuses never hides the failure being told.
"""

from __future__ import annotations

from selfheal.bot.events import Trigger
from selfheal.bot.exceptions import BotError
from selfheal.bot.github.client import GitHubClient
from selfheal.bot.github.markup import MARKER, after_marker
from selfheal.bot.github.progress import ProgressComment
from selfheal.sandbox.secrets import process_scrubber


class Talk:
    def __init__(self, client: GitHubClient, notice: str = "") -> None:
        self.client = client
        self.notice = notice  # said with the outcome, e.g. why this job heals without its model
        self.progress: ProgressComment | None = None

    def start_progress(self, trigger: Trigger, title: str, author: str | None) -> ProgressComment | None:
        if not trigger.issue_number:
            return None
        asked = f" (asked by @{trigger.requester})" if trigger.requester else ""
        key = f"comment-{trigger.comment_id}" if trigger.comment_id else ""
        progress = ProgressComment(
            self.client, trigger.issue_number, f"{title}{asked}", key=key, author=author
        )
        progress.start()
        self.progress = progress  # concluded with the failure, should the heal fail
        return progress

    def conclude(self, trigger: Trigger, progress: ProgressComment | None, text: str, *, ok: bool) -> None:
        if self.notice:
            text += f"\n\n{self.notice}"
        text = process_scrubber().scrub(text)  # a provider's or a test's words may quote a secret
        if progress:
            progress.finish(text)
        if not ok and trigger.comment_id:
            self.react(trigger, "confused")

    def tell_failure(self, trigger: Trigger, text: str) -> None:
        """In the progress comment, when there is one: its ⏳ is concluded, not left beside a second one."""
        if self.progress is not None and self.progress.comment_id is not None:
            self.progress.finish(text)
        else:
            self.say(trigger, f"{MARKER}\n{text}")

    def say(self, trigger: Trigger, body: str) -> None:
        if not trigger.issue_number:
            return
        try:
            self.client.comment(trigger.issue_number, after_marker(MARKER, process_scrubber().scrub(body)))
        except BotError:
            pass  # telling about a failure must not hide the failure itself

    def react(self, trigger: Trigger, content: str) -> str | None:
        """React to the command; the login that reacted, or None when it could not."""
        if not (trigger.issue_number and trigger.comment_id):
            return None
        try:
            return self.client.react(trigger.issue_number, trigger.comment_id, content) or None
        except BotError:
            return None  # a missing emoji is not worth failing a heal
