"""Branch and pull request, created or updated: one PR per failure signature.

    commit on the base sha -> compare with the remote branch -> push (force, with lease)
    -> open PR | update PR body | nothing changed        => operation created | updated | none

The commit is made from `Change.files` as held in memory, never in the checkout the heal's tests
ran next to: in a `Stage` (gitops, a git directory created after the heal) or an `ApiStage`
(gitdata, GitHub's Git Data API).

A push whose pull request then cannot be opened is undone (the branch deleted) when this run created
the branch and no open pull request uses it; should that fail too, the next run finds the branch and
reuses it, since the push is forced. Two runs publishing one failure at once meet on one branch and
one pull request (see publish_pull).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from selfheal.bot.exceptions import BotError, GitError, GitHubError, LeaseLost
from selfheal.bot.github.client import GitHubClient, PullInfo
from selfheal.bot.github.gitops import Built, Identity, RemoteCommit

CREATED, UPDATED, NONE = "created", "updated", "none"
LABEL = "selfheal"
BODY_LIMIT = 65_536  # GitHub rejects longer pull request bodies
LEASE_TRIES = 3
UNPUBLISHABLE = (
    "selfheal publishes repaired source files and new tests inside the repository, never a path "
    "outside it, in .git, or under .github (a workflow there would run with the repository's secrets)"
)


def publishable(path: str) -> bool:
    """Is `path` one selfheal may commit: relative, inside the repository, not under .git or .github?"""
    parts = path.split("/")
    if "\\" in path or any(part in ("", ".", "..") for part in parts):
        return False  # absolute ("/x": an empty first part), a `//`, a step out, a Windows separator
    return parts[0].lower() != ".github" and ".git" not in (part.lower() for part in parts)


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
    # whether the pull request is a draft as GitHub holds it (an update keeps what it was opened
    # as); None without a pull request
    draft: bool | None = None


def fit_body(body: str, more_url: str) -> str:
    if len(body) <= BODY_LIMIT:
        return body
    tail = f"\n\n… cut to GitHub's limit. The full report is in the run's artifact: {more_url}\n"
    return body[: BODY_LIMIT - len(tail)] + tail


@dataclass(frozen=True)
class Pushed:
    sha: str  # the commit the branch holds for this change
    moved: bool  # this run moved the branch
    created: bool  # this run created the branch (so it may delete it again)


def push_branch(stage: Publisher, change: Change, author: Identity) -> tuple[str, bool]:
    """Commit the change on its base and push it; (commit sha, whether the branch moved)."""
    pushed = push_change(stage, change, author)
    return pushed.sha, pushed.moved


def push_change(
    stage: Publisher,
    change: Change,
    author: Identity,
    *,
    on_failure: Callable[[str, bool], None] = lambda sha, created: None,
) -> Pushed:
    """Commit the change on its base and push it over whatever the branch holds.

    Another run healing the same failure may push the same branch at the same time (two issues,
    an issue and a red run): a lease lost to it is taken again over its commit, up to LEASE_TRIES
    times; its commit is kept when it holds the same tree on the same base. A push that fails or is
    stopped may have arrived all the same: `on_failure(sha, created by this run)` is told before the
    error goes on."""
    if stage.base != change.base_sha:
        raise BotError(f"the stage holds {stage.base[:12]}, the change is on {change.base_sha[:12]}")
    refused = [path for path in change.files if not publishable(path)]
    if refused:
        raise BotError(f"the change writes {', '.join(sorted(refused))}: {UNPUBLISHABLE}; nothing was pushed")
    built = stage.commit(change.files, change.message, author)
    existing = stage.remote_branch(change.branch)
    created = existing is None
    for _ in range(LEASE_TRIES):
        if existing is not None and existing.tree == built.tree and existing.parents == (change.base_sha,):
            return Pushed(existing.sha, False, False)
        try:
            stage.push(built.sha, change.branch, expected=existing.sha if existing else None)
            return Pushed(built.sha, True, created)
        except KeyboardInterrupt:
            on_failure(built.sha, created)
            raise
        except LeaseLost as exc:
            now = stage.remote_branch(change.branch)
            if now is not None and now.sha == built.sha:
                # this run's commit is there: its own push whose answer was lost (maybe_arrived), or
                # the same commit made by another run in the same second. Either way it is used, and
                # not deleted later: this run cannot tell that it created the branch.
                return Pushed(built.sha, True, created and not exc.maybe_arrived)
            if now is None:  # moved and deleted again: the next try creates it
                existing = None
                continue
            existing, created = now, False  # another run pushed first: this one goes over its commit
        except GitError:
            # a push whose answer was lost (the connection hung up after the server took it): the
            # branch tells whether it arrived
            if _holds(stage, change.branch, built.sha):
                return Pushed(built.sha, True, False)
            on_failure(built.sha, created)
            raise
        except BotError:
            on_failure(built.sha, created)
            raise
    raise BotError(f"{change.branch} kept moving under this run's push ({LEASE_TRIES} tries)")


def _holds(stage: Publisher, branch: str, sha: str) -> bool:
    try:
        now = stage.remote_branch(branch)
    except BotError:
        return False
    return now is not None and now.sha == sha


def publish_pull(
    client: GitHubClient,
    stage: Publisher,
    change: Change,
    author: Identity,
    *,
    reviewer: str | None,
) -> Publication:
    """Push the change and open its pull request, or update the one open for its branch.

    Safe when another run publishes the same failure at the same time: the pull requests of the
    branch are looked up after the push, a 422 "already exists" from opening one means the other run
    opened it first (found and updated: operation `updated`), and a branch is deleted only when this
    run created it and no open pull request uses it."""
    owner = client.repo_name.split("/")[0]

    def undo(sha: str, created: bool) -> None:
        if created:
            _undo_push(client, owner, change.branch, sha)

    pushed = push_change(stage, change, author, on_failure=undo)
    try:
        return _open_or_update(client, owner, change, pushed, reviewer)
    except (BotError, KeyboardInterrupt):
        if pushed.created and pushed.moved:
            _undo_push(client, owner, change.branch, pushed.sha)
        raise


def _open_or_update(
    client: GitHubClient, owner: str, change: Change, pushed: Pushed, reviewer: str | None
) -> Publication:
    open_prs = client.open_pulls(owner, change.branch, base=change.base_branch)
    if open_prs:
        return _update(client, open_prs[0], change, pushed)
    notes: list[str] = []
    try:
        pull = client.create_pull(
            title=change.title,
            body=change.body,
            head=change.branch,
            base=change.base_branch,
            draft=change.draft,
        )
    except GitHubError as exc:
        found = _found_pull(client, owner, change)  # opened by another run, or the answer was lost
        if found is None:
            raise
        if already_exists(exc):
            return _update(client, found, change, pushed)
        pull = found
        notes.append(f"GitHub's answer to opening the pull request was lost ({exc}); it was opened")
    except BotError as exc:
        found = _found_pull(client, owner, change)
        if found is None:
            raise
        pull = found
        notes.append(f"GitHub's answer to opening the pull request was lost ({exc}); it was opened")
    try:
        client.add_label(pull.number, LABEL)
    except BotError as exc:
        notes.append(f"label not added: {exc}")
    if reviewer:
        refused = client.request_review(pull.number, reviewer)
        if refused:
            notes.append(refused)
    return Publication(
        CREATED, change.branch, pushed.sha, pull.number, pull.url, tuple(notes), draft=pull.draft
    )


def _update(client: GitHubClient, pull: PullInfo, change: Change, pushed: Pushed) -> Publication:
    if not pushed.moved:  # the same fix on the same base: leave the PR and its discussion alone
        return Publication(NONE, change.branch, pushed.sha, pull.number, pull.url, draft=pull.draft)
    pull = client.update_pull(pull.number, title=change.title, body=change.body)
    return Publication(UPDATED, change.branch, pushed.sha, pull.number, pull.url, draft=pull.draft)


def already_exists(exc: GitHubError) -> bool:
    """GitHub's 422 to a second pull request for one head and base (its error code is `custom`, so the
    message is what tells)."""
    return exc.status == 422 and "already exists" in str(exc)


def _found_pull(client: GitHubClient, owner: str, change: Change) -> PullInfo | None:
    """The open pull request of the change's branch, when a create that seemed to fail made it."""
    try:
        pulls = client.open_pulls(owner, change.branch, base=change.base_branch)
    except BotError:
        return None
    return pulls[0] if pulls else None


def _undo_push(client: GitHubClient, owner: str, branch: str, sha: str) -> None:
    """Delete the branch this run created, if it still holds this run's commit and no open pull
    request uses it: anything else belongs to another run now."""
    try:
        if client.branch_sha(branch) != sha:
            return  # the push never arrived, or another run's commit is there now
        if client.open_pulls(owner, branch):
            return
        client.delete_branch(branch)
    except BotError as exc:
        sys.stderr.write(
            f"selfheal: branch {branch} stays without a pull request ({exc}); the next run reuses it\n"
        )
