"""GitHub event payloads -> `Trigger`, or `Skip` with the reason. No API calls here.

Read exactly as the runner provides them: the event name (`GITHUB_EVENT_NAME`) and the JSON file
at `GITHUB_EVENT_PATH`; the webhook server hands over the same payloads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfheal.bot.commands import HealCommand, parse_command, strip_hidden
from selfheal.bot.eventschema import check_payload
from selfheal.bot.exceptions import EventError
from selfheal.bot.github.markup import MARKER

COMMENT, WORKFLOW_RUN, DISPATCH = "issue_comment", "workflow_run", "workflow_dispatch"


@dataclass(frozen=True)
class Skip:
    reason: str


@dataclass(frozen=True)
class FailedRun:
    run_id: int
    name: str
    url: str
    head_sha: str
    head_branch: str
    head_repo: str  # full name of the repository the commit lives in (a fork's); "": a deleted fork
    pull_numbers: tuple[int, ...]

    def is_fork_of(self, repo: str) -> bool:
        """A run of another repository, or of one nobody can name any more, is a fork's."""
        return not self.head_repo or self.head_repo.lower() != repo.lower()

    @property
    def fork(self) -> str:
        """The head repository as a person reads it: `the fork owner/name`, or `a deleted fork`."""
        return f"the fork {self.head_repo}" if self.head_repo else "a deleted fork"


@dataclass(frozen=True)
class Trigger:
    kind: str  # issue_comment | workflow_run | workflow_dispatch
    repo: str  # owner/name the workflow runs in
    requester: str | None = None  # the commenter or dispatcher; None for red CI
    issue_number: int | None = None  # where to talk (issue or PR); None for a push build
    is_pull_request: bool = False
    comment_id: int | None = None
    command: HealCommand | None = None
    run: FailedRun | None = None
    ref: str | None = None  # workflow_dispatch: the ref to heal
    test_command: str | None = None
    context: str = ""  # issue title and body (hidden comments removed), for a model

    @property
    def dry_run(self) -> bool:
        return bool(self.command and self.command.dry_run)


def load_event(name: str | None, path: str | None) -> dict[str, Any]:
    if not name:
        raise EventError("GITHUB_EVENT_NAME is not set: selfheal action runs inside a GitHub workflow")
    if not path:
        raise EventError("GITHUB_EVENT_PATH is not set: the runner provides the event payload there")
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise EventError(f"event file {path} does not exist") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventError(f"event file {path} is not valid JSON ({exc}); is it truncated?") from exc
    if not isinstance(payload, dict):
        raise EventError(f"event file {path} holds a {type(payload).__name__}, not a JSON object")
    return payload


def parse_event(name: str, payload: dict[str, Any], repo_hint: str | None = None) -> Trigger | Skip:
    if repo_hint and not isinstance(payload.get("repository"), dict):  # the Action knows its repository
        payload = {**payload, "repository": {"full_name": repo_hint}}
    check_payload(name, payload)
    repo = _get(payload, "repository", "full_name", default=repo_hint)
    if not isinstance(repo, str) or "/" not in repo:
        raise EventError(f"{name} event without repository.full_name")
    if name == COMMENT:
        return _comment(payload, repo)
    if name == WORKFLOW_RUN:
        return _workflow_run(payload, repo)
    if name == DISPATCH:
        return _dispatch(payload, repo)
    return Skip(f"selfheal does not act on {name!r} events (issue_comment, workflow_run, workflow_dispatch)")


def _comment(payload: dict[str, Any], repo: str) -> Trigger | Skip:
    action = payload.get("action")
    if action != "created":
        return Skip(f"comment {action or 'event'}: only new comments are commands")
    comment = _need(payload, "comment")
    issue = _need(payload, "issue")
    body = comment.get("body") or ""
    if MARKER in body:
        return Skip("a comment written by selfheal")
    user = comment.get("user")
    if user is None:  # GitHub's REST API gives a deleted account's comments no user at all
        return Skip("a comment without an author (a deleted account): nobody whose access can be checked")
    login = user.get("login") if isinstance(user, dict) else None
    if not isinstance(login, str):
        raise EventError("issue_comment event without comment.user.login")
    if user.get("type") == "Bot" or login.endswith("[bot]"):
        return Skip(f"comment by the bot {login}")
    command = parse_command(body)
    if command is None:
        return Skip("the comment is not a /heal command")
    number = issue.get("number")
    comment_id = comment.get("id")
    if not isinstance(number, int) or not isinstance(comment_id, int):
        raise EventError("issue_comment event without issue.number or comment.id")
    title = strip_hidden(issue.get("title") or "").strip()
    text = strip_hidden(issue.get("body") or "").strip()
    issue_text = ""
    if title or text:
        # the issue is the words of whoever opened it, not of the one who asked for the heal
        author = (issue.get("user") or {}).get("login") if isinstance(issue.get("user"), dict) else None
        association = str(issue.get("author_association") or "unknown").lower().replace("_", " ")
        who = "the requester" if author == login else f"@{author or 'someone'}, not the requester"
        kind = "pull request" if issue.get("pull_request") else "issue"
        issue_text = f"[the {kind}'s text, written by {who} (association with the repository: {association})]"
        issue_text += "\n" + "\n\n".join(part for part in (title, text) if part)
    return Trigger(
        kind=COMMENT,
        repo=repo,
        requester=login,
        issue_number=number,
        is_pull_request=bool(issue.get("pull_request")),
        comment_id=comment_id,
        command=command,
        # what a model reads as the requester's hint: the words after /heal first, then the issue
        context="\n\n".join(part for part in (command.hint, command.context, issue_text) if part)[:8000],
    )


def _workflow_run(payload: dict[str, Any], repo: str) -> Trigger | Skip:
    run = _need(payload, "workflow_run")
    if payload.get("action") not in (None, "completed"):
        return Skip(f"workflow run {payload.get('action')}: only completed runs are looked at")
    conclusion = run.get("conclusion")
    if conclusion != "failure":
        return Skip(f"the workflow run concluded {conclusion or 'without a conclusion'}, not failure")
    head_sha, head_branch = run.get("head_sha"), run.get("head_branch")
    if not isinstance(head_sha, str) or not isinstance(head_branch, str):
        raise EventError("workflow_run event without head_sha or head_branch")
    # GitHub sends a null head repository for a run of a fork that has since been deleted: a
    # repository nobody can name is not the base one, so it is a fork for every purpose
    head_repo = _get(run, "head_repository", "full_name", default="")
    pulls = tuple(p["number"] for p in run.get("pull_requests") or [] if isinstance(p.get("number"), int))
    failed = FailedRun(
        run_id=int(run.get("id") or 0),
        name=str(run.get("name") or ""),
        url=str(run.get("html_url") or ""),
        head_sha=head_sha,
        head_branch=head_branch,
        head_repo=str(head_repo),
        pull_numbers=pulls,
    )
    return Trigger(
        kind=WORKFLOW_RUN,
        repo=repo,
        issue_number=pulls[0] if pulls else None,
        is_pull_request=bool(pulls),
        run=failed,
    )


def _dispatch(payload: dict[str, Any], repo: str) -> Trigger:
    inputs = payload.get("inputs") or {}
    ref = inputs.get("ref") or payload.get("ref") or None
    if isinstance(ref, str):
        ref = ref.removeprefix("refs/heads/")
    return Trigger(
        kind=DISPATCH,
        repo=repo,
        requester=_get(payload, "sender", "login"),
        ref=ref,
        test_command=inputs.get("test-command") or inputs.get("test_command") or None,
    )


def _need(payload: dict[str, Any], key: str) -> dict[str, Any]:
    value = payload.get(key)
    if not isinstance(value, dict):
        raise EventError(f"event payload without {key!r}")
    return value


def _get(payload: dict[str, Any], *keys: str, default: Any = None) -> Any:
    value: Any = payload
    for key in keys:
        if not isinstance(value, dict):
            return default
        value = value.get(key)
    return default if value is None else value
