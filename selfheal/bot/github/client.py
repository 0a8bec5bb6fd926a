"""The GitHub REST API through PyGithub, narrowed to what selfheal does, errors mapped at the boundary.

Retries are PyGithub's own (`GithubRetry`: 5xx with backoff, 403 only when GitHub says it is a
rate limit); POST is retried only on a rate limit, because a 5xx on a POST may have created the
comment or pull request already. Rate-limit waits are capped, so a run never sleeps for an hour.
"""

from __future__ import annotations

import base64
import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from github import Auth, Github, GithubException, GithubRetry, InputGitAuthor, InputGitTreeElement
from github.PullRequest import PullRequest
from github.Repository import Repository

from selfheal.bot.exceptions import CredentialsError, GitHubError

DEFAULT_API_URL = "https://api.github.com"
PERMISSION_RANK = {"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}
REACTIONS = {"eyes", "rocket", "confused", "+1", "-1", "laugh", "heart", "hooray"}

P = ParamSpec("P")
R = TypeVar("R")


class SafeRetry(GithubRetry):
    """GithubRetry, except that a POST is not repeated after a server error, and PATCH (our edits of
    a comment or PR body: idempotent) is retried like GET."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allowed_methods", GithubRetry.DEFAULT_ALLOWED_METHODS | {"GET", "POST", "PATCH"})
        super().__init__(**kwargs)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        if method.upper() == "POST" and status_code != 403:
            return False
        return super().is_retry(method, status_code, has_retry_after)

    def increment(self, method: str | None = None, url: str | None = None, *args: Any, **kwargs: Any) -> Any:
        """A POST whose answer never came (read timeout, connection reset after sending) is not
        repeated either: GitHub may have made the comment or pull request already. A connection that
        was never made is retried as before."""
        error = kwargs.get("error", args[1] if len(args) > 1 else None)
        if error is not None and (method or "").upper() == "POST" and self._is_read_error(error):
            raise error
        return super().increment(method, url, *args, **kwargs)


@dataclass(frozen=True)
class PullInfo:
    number: int
    url: str
    author: str
    head_ref: str
    head_sha: str
    head_repo: str  # full name; differs from the base repo for a fork
    base_ref: str
    draft: bool
    body: str

    def is_fork(self, repo: str) -> bool:
        return self.head_repo.lower() != repo.lower()


@dataclass(frozen=True)
class CommentInfo:
    id: int
    author: str
    author_type: str
    body: str


def _error_message(data: object) -> str | None:
    """GitHub's message, with the validation errors' own messages: a 422's "Validation Failed" alone
    does not say that a pull request already exists."""
    if not isinstance(data, dict):
        return None
    message = data.get("message")
    errors = data.get("errors")
    details = (
        [e["message"] for e in errors if isinstance(e, dict) and isinstance(e.get("message"), str)]
        if isinstance(errors, list)
        else []
    )
    if details:
        return f"{message} ({'; '.join(details)})" if message else "; ".join(details)
    return message if isinstance(message, str) else None


def mapped(what: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Turn PyGithub and transport errors into GitHubError naming what was being done."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def inner(*args: P.args, **kwargs: P.kwargs) -> R:
            calls = getattr(args[0], "calls", None) if args else None  # the client's tally, for /metrics
            outcome = "error"
            try:
                value = fn(*args, **kwargs)
                outcome = "ok"
                return value
            except GithubException as exc:
                outcome = str(exc.status)
                message = _error_message(exc.data)
                if exc.status == 401:
                    raise CredentialsError(f"GitHub rejected the token while trying to {what} (401)") from exc
                raise GitHubError(
                    f"GitHub answered {exc.status} to {what}" + (f": {message}" if message else ""),
                    status=exc.status,
                ) from exc
            except OSError as exc:  # connection errors; requests' RetryError once retries are spent
                raise GitHubError(f"could not reach GitHub to {what}: {type(exc).__name__}") from exc
            except (KeyError, ValueError) as exc:  # an answer without the fields GitHub documents
                raise GitHubError(f"GitHub's answer to {what} was not understood ({exc!r})") from exc
            finally:
                if isinstance(calls, Counter):
                    calls[what, outcome] += 1

        return inner

    return wrap


class GitHubClient:
    def __init__(
        self,
        repo: str,
        token: str,
        *,
        api_url: str = DEFAULT_API_URL,
        write_interval: float = 1.0,
        timeout: int = 30,
    ) -> None:
        if not token:
            raise CredentialsError("no GitHub token: set the action's github-token input")
        self.repo_name = repo
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout  # seconds without an answer before a request is given up
        self._gh = Github(
            base_url=self.api_url,
            auth=Auth.Token(token),
            retry=SafeRetry(total=5, backoff_factor=0.5, secondary_rate_wait=30, max_rate_limit_wait=120),
            timeout=timeout,
            seconds_between_requests=None,
            # GitHub asks integrations to space out content-creating requests
            seconds_between_writes=write_interval or None,
        )
        self._repo: Repository | None = None
        # GitHub operations this client ran, by what and outcome (ok, an HTTP status, error); one
        # operation is one or a few requests, PyGithub's retries not counted
        self.calls: Counter[tuple[str, str]] = Counter()

    # -- repository ---------------------------------------------------------------------------------
    @property
    @mapped("read the repository")
    def repository(self) -> Repository:
        if self._repo is None:
            self._repo = self._gh.get_repo(self.repo_name)
        return self._repo

    @property
    def default_branch(self) -> str:
        return self.repository.default_branch

    @property
    def clone_url(self) -> str:
        return self.repository.clone_url

    @mapped("read a collaborator's permission")
    def permission(self, login: str) -> str:
        """The collaborator's role (admin, maintain, write, triage, read or none)."""
        try:
            role = self.repository.get_collaborator_role_name(login)
            if role not in PERMISSION_RANK:  # a custom role: judge by its base permission
                role = self.repository.get_collaborator_permission(login)
        except GithubException as exc:
            if exc.status == 404:  # not a collaborator of a private repository
                return "none"
            raise
        return role or "none"

    # -- pull requests ------------------------------------------------------------------------------
    @mapped("read a pull request")
    def pull(self, number: int) -> PullInfo:
        return _pull_info(self.repository.get_pull(number))

    @mapped("find the pull requests of a branch")
    def open_pulls(self, head_owner: str, branch: str, base: str | None = None) -> list[PullInfo]:
        kwargs: dict[str, Any] = {"state": "open", "head": f"{head_owner}:{branch}"}
        if base:
            kwargs["base"] = base
        return [_pull_info(p) for p in self.repository.get_pulls(**kwargs)]

    @mapped("find the pull requests of a commit")
    def pulls_for_commit(self, sha: str) -> list[PullInfo]:
        return [_pull_info(p) for p in self.repository.get_commit(sha).get_pulls()]

    @mapped("open a pull request")
    def create_pull(self, *, title: str, body: str, head: str, base: str, draft: bool) -> PullInfo:
        pull = self.repository.create_pull(
            title=title, body=body, head=head, base=base, draft=draft, maintainer_can_modify=True
        )
        return _pull_info(pull)

    @mapped("update a pull request")
    def update_pull(self, number: int, *, title: str, body: str) -> PullInfo:
        pull = self.repository.get_pull(number)
        pull.edit(title=title, body=body)
        return _pull_info(self.repository.get_pull(number))

    @mapped("label a pull request")
    def add_label(self, number: int, label: str) -> None:
        self.repository.get_issue(number).add_to_labels(label)

    def request_review(self, number: int, login: str) -> str | None:
        """Ask `login` to review; a refusal (e.g. the author cannot review) is returned, not raised."""
        try:
            self.repository.get_pull(number).create_review_request(reviewers=[login])
        except GithubException as exc:
            message = exc.data.get("message") if isinstance(exc.data, dict) else exc.status
            return f"review request for {login} refused: {message}"
        return None

    @mapped("read the rate limit")
    def rate_remaining(self) -> int:
        """X-RateLimit-Remaining of the last answer (asked for only if no answer carried it yet)."""
        return int(self._gh.rate_limiting[0])

    @mapped("delete a branch")
    def delete_branch(self, branch: str) -> None:
        self.repository.get_git_ref(f"heads/{branch}").delete()

    @mapped("read a branch")
    def branch_sha(self, branch: str) -> str | None:
        try:
            return self.repository.get_branch(branch).commit.sha
        except GithubException as exc:
            if exc.status == 404:
                return None
            raise

    @mapped("read a commit")
    def commit_message(self, sha: str) -> str:
        return self.repository.get_git_commit(sha).message

    # -- the Git database (commits made on GitHub, no local git) ------------------------------------
    @mapped("read a commit")
    def git_commit(self, sha: str) -> tuple[str, tuple[str, ...]]:
        """(tree sha, parent shas) of a commit."""
        commit = self.repository.get_git_commit(sha)
        return commit.tree.sha, tuple(p.sha for p in commit.parents)

    @mapped("read a tree")
    def tree_entries(self, sha: str) -> dict[str, tuple[str, str, str]]:
        """{name: (mode, type, sha)} of one tree, not recursive."""
        return {e.path: (e.mode, e.type, e.sha) for e in self.repository.get_git_tree(sha).tree}

    @mapped("create a blob")
    def create_blob(self, data: bytes) -> str:
        return self.repository.create_git_blob(base64.b64encode(data).decode("ascii"), "base64").sha

    @mapped("create a tree")
    def create_tree(self, base_tree: str, entries: list[tuple[str, str, str]]) -> str:
        """A tree: `base_tree` with (path, mode, blob sha) entries written over it."""
        elements = [InputGitTreeElement(path, mode, "blob", sha=blob) for path, mode, blob in entries]
        return self.repository.create_git_tree(elements, self.repository.get_git_tree(base_tree)).sha

    @mapped("create a commit")
    def create_commit(self, message: str, tree: str, parents: list[str], name: str, email: str) -> str:
        person = InputGitAuthor(name, email)
        return self.repository.create_git_commit(
            message,
            self.repository.get_git_tree(tree),
            [self.repository.get_git_commit(p) for p in parents],
            author=person,
            committer=person,
        ).sha

    @mapped("move a branch")
    def set_branch(self, branch: str, sha: str, *, create: bool) -> None:
        if create:
            self.repository.create_git_ref(f"refs/heads/{branch}", sha)
        else:
            self.repository.get_git_ref(f"heads/{branch}").edit(sha, force=True)

    # -- issues, comments, reactions ----------------------------------------------------------------
    @mapped("comment")
    def comment(self, issue_number: int, body: str) -> int:
        return self.repository.get_issue(issue_number).create_comment(body).id

    @mapped("edit a comment")
    def edit_comment(self, issue_number: int, comment_id: int, body: str) -> None:
        self.repository.get_issue(issue_number).get_comment(comment_id).edit(body)

    @mapped("read the comments")
    def comments(self, issue_number: int) -> list[CommentInfo]:
        return [
            CommentInfo(c.id, c.user.login, c.user.type or "User", c.body or "")
            for c in self.repository.get_issue(issue_number).get_comments()
        ]

    @mapped("react to a comment")
    def react(self, issue_number: int, comment_id: int, content: str) -> str:
        """React, and return the login that reacted: the identity this client's token acts as."""
        if content not in REACTIONS:
            raise ValueError(f"unknown reaction {content!r}")
        reaction = self.repository.get_issue(issue_number).get_comment(comment_id).create_reaction(content)
        return reaction.user.login if reaction.user else ""


def _pull_info(pull: PullRequest) -> PullInfo:
    head_repo = pull.head.repo.full_name if pull.head.repo else ""
    return PullInfo(
        number=pull.number,
        url=pull.html_url,
        author=pull.user.login if pull.user else "",
        head_ref=pull.head.ref,
        head_sha=pull.head.sha,
        head_repo=head_repo,
        base_ref=pull.base.ref,
        draft=bool(pull.draft),
        body=pull.body or "",
    )
