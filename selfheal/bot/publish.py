"""Branch and pull request, created or updated: one PR per failure signature.

    commit on the base sha -> compare with the remote branch -> push (force, with lease)
    -> open PR | update PR body | nothing changed        => operation created | updated | none

The commit is made from `Change.files` as held in memory, never in the checkout the heal's tests
ran next to: in a `Stage` (gitops, a git directory created after the heal) or an `ApiStage`
(gitdata, GitHub's Git Data API).

A push whose pull request then cannot be opened is undone (the branch deleted); should that
fail too, the next run finds the branch and reuses it, since the push is forced.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from selfheal.bot.exceptions import BotError
from selfheal.bot.github import GitHubClient, PullInfo
from selfheal.bot.gitops import Built, Identity, RemoteCommit

CREATED, UPDATED, NONE = "created", "updated", "none"
LABEL = "selfheal"
BODY_LIMIT = 65_536  # GitHub rejects longer pull request bodies


class Publisher(Protocol):
    """Where the commit is made and the branch moved: on the base commit, from files in memory."""

    base: str

    def commit(self, files: Mapping[str, str], message: str, author: Identity) -> Built: ...

    def remote_branch(self, branch: str) -> RemoteCommit | None: ...

    def push(self, sha: str, branch: str, *, expected: str | None) -> None: ...


@dataclass(frozen=True)
class Change:
    """What goes into the commit: the repaired files and the new tests (full text, repo-relative),
    nothing else, and the message."""

    files: dict[str, str]
    title: str
    message: str
    body: str
    signature: str
    branch: str
    base_branch: str
    base_sha: str
    draft: bool


@dataclass(frozen=True)
class Publication:
    operation: str
    branch: str
    commit: str = ""
    pr_number: int | None = None
    pr_url: str = ""
    notes: tuple[str, ...] = ()


def fit_body(body: str, more_url: str) -> str:
    if len(body) <= BODY_LIMIT:
        return body
    tail = f"\n\n… cut to GitHub's limit. The full report is in the run's artifact: {more_url}\n"
    return body[: BODY_LIMIT - len(tail)] + tail


def push_branch(stage: Publisher, change: Change, author: Identity) -> tuple[str, bool]:
    """Commit the change on its base and push it; (commit sha, whether the branch moved)."""
    if stage.base != change.base_sha:
        raise BotError(f"the stage holds {stage.base[:12]}, the change is on {change.base_sha[:12]}")
    built = stage.commit(change.files, change.message, author)
    existing = stage.remote_branch(change.branch)
    if existing is not None and existing.tree == built.tree and existing.parents == (change.base_sha,):
        return existing.sha, False
    stage.push(built.sha, change.branch, expected=existing.sha if existing else None)
    return built.sha, True


def publish_pull(
    client: GitHubClient,
    stage: Publisher,
    change: Change,
    author: Identity,
    *,
    reviewer: str | None,
) -> Publication:
    owner = client.repo_name.split("/")[0]
    open_prs = client.open_pulls(owner, change.branch, base=change.base_branch)
    try:
        sha, moved = push_branch(stage, change, author)
    except (BotError, KeyboardInterrupt):  # a failed or stopped push may have moved the branch all the same
        if not open_prs:
            _undo_push(client, change.branch)
        raise
    notes: list[str] = []
    if open_prs:
        pull = open_prs[0]
        if not moved:  # the same fix on the same base: leave the PR and its discussion alone
            return Publication(NONE, change.branch, sha, pull.number, pull.url)
        pull = client.update_pull(pull.number, title=change.title, body=change.body)
        return Publication(UPDATED, change.branch, sha, pull.number, pull.url)
    try:
        pull = client.create_pull(
            title=change.title,
            body=change.body,
            head=change.branch,
            base=change.base_branch,
            draft=change.draft,
        )
    except BotError as exc:
        found = _found_pull(client, owner, change)  # the answer may be what failed, not the request
        if found is None:
            _undo_push(client, change.branch)
            raise
        pull = found
        notes.append(f"GitHub's answer to opening the pull request was lost ({exc}); it was opened")
    except KeyboardInterrupt:  # stopped while asking: keep the pull request if GitHub made it
        if not _pulled(client, owner, change):
            _undo_push(client, change.branch)
        raise
    try:
        client.add_label(pull.number, LABEL)
    except BotError as exc:
        notes.append(f"label not added: {exc}")
    if reviewer:
        refused = client.request_review(pull.number, reviewer)
        if refused:
            notes.append(refused)
    return Publication(CREATED, change.branch, sha, pull.number, pull.url, tuple(notes))


def _pulled(client: GitHubClient, owner: str, change: Change) -> bool:
    try:
        return bool(client.open_pulls(owner, change.branch, base=change.base_branch))
    except BotError:
        return True  # unknown: deleting the branch could close a pull request that exists


def _found_pull(client: GitHubClient, owner: str, change: Change) -> PullInfo | None:
    """The open pull request of the change's branch, when a create that seemed to fail made it."""
    try:
        pulls = client.open_pulls(owner, change.branch, base=change.base_branch)
    except BotError:
        return None
    return pulls[0] if pulls else None


def _undo_push(client: GitHubClient, branch: str) -> None:
    try:
        if client.branch_sha(branch) is None:
            return  # the push never arrived
        client.delete_branch(branch)
    except BotError as exc:
        sys.stderr.write(
            f"selfheal: branch {branch} stays without a pull request ({exc}); the next run reuses it\n"
        )
