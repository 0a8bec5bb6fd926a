#!/usr/bin/env python3
"""A fake GitHub that runs as its own process on loopback: REST API + smart-HTTP git remotes.

Layout (GitHub Enterprise Server style), with ``URL = http://127.0.0.1:PORT``:

* ``URL/api/v3/...``       REST API; pass ``URL/api/v3`` as PyGithub's ``base_url`` (every ``url`` field
                           in the JSON points back here, so PyGithub's lazy completion and paging work)
* ``URL/OWNER/REPO.git``   git remote over smart HTTP (``git http-backend``); ``clone_url`` says so
* ``URL/OWNER/REPO``       ``html_url`` of a repository (``.../pull/N``, ``.../issues/N``; not served)
* ``URL/_fake/...``        test control, no auth: ``GET state``, ``GET requests``, ``POST fail``,
                           ``POST fail/clear``, ``POST seed``, ``POST reset-log``

Run it::

    python tests/fakes/github_server.py --state STATE.json --port 0 --ready-file READY.json \
        [--dump-state FINAL.json] [--exit-with-parent] [--verbose]

It writes ``{"url", "api_url", "pid", "port"}`` to READY.json (atomically) once listening and serves
until SIGTERM/SIGINT. ``FakeGitHub`` (bottom of this file) does all that from a test.

Seed state (STATE.json)::

    {"token": "ghs_...", "bot_login": "github-actions[bot]",
     "repos": [{"full_name": "acme/widgets", "default_branch": "main", "git_dir": "/abs/remote.git",
                "collaborators": {"alice": "write", "bob": "read", "t": "triage", "m": "maintain"},
                "private": false, "owner_type": "User", "parent": null,
                "non_collaborator_permission": "none", "labels": ["bug", {"name": "x", "color": "ff0000"}],
                "pulls": [{"number": 7, "title": "", "body": "", "user": "alice", "head_ref": "feature",
                           "head_sha": null, "base_ref": "main", "head_full_name": "acme/widgets",
                           "draft": false, "state": "open", "labels": [], "requested_reviewers": [],
                           "comments": [{"id": 5001, "user": "alice", "body": "/heal",
                                         "reactions": [{"user": "bob", "content": "+1"}]}]}],
                "issues": [{"number": 3, "title": "", "body": "", "user": "alice", "comments": []}]}]}

Issues and pulls share one number counter per repository. An open PR's head sha is read live from the
head repository's branch (a force-push shows at once); when that cannot be resolved (branch deleted,
fork without a ``git_dir``) the last known / seeded sha is kept, then ``refs/pull/N/head`` of the base
repository, then (forks only) the base repository's branch of the same name. The fake keeps
``refs/pull/N/head`` in the base repository up to date, as GitHub does. A ``head_full_name`` naming a
repository that is not in ``repos`` creates a git-less fork repository for it.

Auth: API requests need ``Authorization: token T`` / ``Bearer T`` (or Basic with T); git requests need
HTTP Basic with T as password (or user). Every non-admin request goes to the request log
``{"seq", "time", "kind": "api"|"git", "method", "path" (raw, with query), "status", "auth",
"token_in_url", "injected", "user_agent"}``.

``GET /_fake/state`` returns ``{"url", "api_url", "token", "bot_login", "requests", "fail_rules",
"rate_limit", "repos": [...]}``; each repo has ``full_name, default_branch, git_dir, parent,
collaborators, branches {name: sha}, labels [names], deleted_comments`` and, in GitHub's own JSON
shapes: ``pulls`` (list-pulls shape + ``merged``, ``maintainer_can_modify`` and the fake-only
``head_sha``, ``head_full_name``, ``fork``, ``comment_ids``), ``issues`` (+ ``comment_ids``),
``comments`` (+ ``issue_number``, ``edits``) and a flat ``reactions`` list (reaction JSON +
``issue_number``, ``comment_id`` - None for a reaction on the issue itself).

``POST /_fake/fail`` ``{"method": "GET"|null, "path_regex": "...", "status": 500, "times": 1,
"rate_limited": false, "rate_limit": "secondary"|"primary", "retry_after": 1, "reset_in": 1,
"message": null, "after": false}``: the next ``times`` matching requests (``re.search`` on the raw
path incl. ``/api/v3`` and the query; git requests too) get ``status``. Rate-limited answers look like
GitHub's: secondary = message "You have exceeded a secondary rate limit..." + ``Retry-After``;
primary = "API rate limit exceeded for ..." + ``X-RateLimit-Remaining: 0`` and ``X-RateLimit-Reset``
= now + ``reset_in``. ``after`` performs the request first, then answers with the failure (a lost reply).
``skip: N`` lets the first N matching requests through (the rule hits the N+1th); ``hang: S`` holds a
matching request S seconds and closes the connection without an answer (status 0 in the log): a
client timeout; with ``after``, the request was performed first.

``POST /_fake/seed`` takes ``{"repo": {...}}`` and/or ``{"full_name": ..., "issue"|"pull": {...},
"comment": {"issue_number", "user", "body", "id"?}, "reaction": {"comment_id"|"issue_number", "user",
"content"}, "collaborators": {...}}`` and answers with the new numbers/ids. Stdlib only.

GitHub App (optional; seed keys ``app`` and ``installations``)::

    {"app": {"id": 12345, "slug": "selfheal", "public_key": "-----BEGIN PUBLIC KEY-----...",
             "token_ttl": 3600},
     "installations": [{"id": 77, "account": "acme", "account_type": "Organization",
                        "repositories": ["acme/widgets"] | null (= all),
                        "permissions": {"contents": "write", "actions": "write", ...}}]}

``Authorization: Bearer <JWT>`` authenticates as the app: an RS256 JWT verified against
``app.public_key`` (SubjectPublicKeyInfo or PKCS#1 PEM) with ``iss`` = the app id, ``exp`` in the
future and at most 10 minutes after ``iat``. The app may call ``GET /app``, ``GET /app/installations``,
``GET /app/installations/{id}``, ``POST /app/installations/{id}/access_tokens`` (201, ``{"token":
"ghs_...", "expires_at", "permissions", "repository_selection"}``; body ``repositories`` narrows it)
and ``GET /repos/{o}/{r}/installation`` (anything else: 403). Each issued token works like the seed
token (API and git) for its installation's repositories until it expires; other repositories answer
404, ``/app`` routes 401. The seed token keeps full access. Issued tokens show in the state as
``app_tokens``; every request log entry has ``principal``: ``"token"``, ``"app"``,
``"installation:<id>"`` or null.

Git database: ``POST /repos/{o}/{r}/git/blobs`` (``content`` + ``encoding`` utf-8|base64; 201
``{"url", "sha"}``), ``GET .../git/blobs/{sha}`` (base64, wrapped), ``POST .../git/trees`` (``tree``
entries of type blob with ``sha`` or ``content``, ``sha: null`` deletes; over ``base_tree``; 201 with
the top-level entries), ``GET .../git/trees/{sha}[?recursive=1]``, ``POST .../git/commits``
(``message``, ``tree``, ``parents``, ``author``/``committer``; the author defaults to the bot login,
the committer to the author; never signed: ``verification.reason`` is ``unsigned``) and ``GET
.../git/commits/{sha}``, all written with git plumbing into the repository's ``git_dir``.

Workflows (repo seed key ``workflows``: ``[{"id", "name", "path", "inputs": ["ref", ...] | null,
"dispatchable": true}]``): ``GET /repos/{o}/{r}/actions/workflows[/{id or file name}]`` and
``POST .../dispatches`` (``ref`` must be a branch or tag, unknown inputs are refused as GitHub does,
an installation token needs ``actions: write``) answer 204, or 200 with ``workflow_run_id``,
``run_url``, ``html_url`` when ``return_run_details`` is true. Each dispatch is recorded in the
repo's ``dispatches`` in the state.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import hmac
import itertools
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

API_PREFIX = "/api/v3"
DOCS = "https://docs.github.com/rest"
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
# GitHub's legacy base roles: maintain is reported as write, triage as read.
ROLE_TO_PERMISSION = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
    "none": "none",
}
ROLE_RANK = {"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}
RATE_LIMIT = 5000
APP_PERMISSIONS = {"contents": "write", "pull_requests": "write", "issues": "write", "actions": "write"}
GIT_SERVICE = re.compile(
    r"^/(?P<owner>[^/]+)/(?P<name>[^/]+?)(?:\.git)?"
    r"(?P<rest>/(?:info/refs|git-upload-pack|git-receive-pack|HEAD|objects/.+))$"
)


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def node_id(kind: str, ident: int) -> str:
    return f"{kind}_" + base64.b64encode(f"fake:{kind}:{ident}".encode()).decode().rstrip("=")


def git_env() -> dict[str, str]:
    """The caller's environment without GIT_* variables that would redirect our git calls."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


# ----------------------------------------------------------------------------------------- model


@dataclass
class Reaction:
    id: int
    user: str
    content: str
    created_at: str


@dataclass
class Comment:
    id: int
    issue_number: int
    user: str
    body: str
    created_at: str
    updated_at: str
    edits: int = 0
    reactions: list[Reaction] = field(default_factory=list)


@dataclass
class PullInfo:
    id: int
    head_ref: str
    head_full_name: str
    head_sha: str | None  # last known; refreshed from git while the PR is open
    base_ref: str
    draft: bool = False
    maintainer_can_modify: bool = False
    requested_reviewers: list[str] = field(default_factory=list)
    merged: bool = False


@dataclass
class Issue:
    number: int
    id: int
    title: str
    body: str | None
    user: str
    state: str = "open"
    state_reason: str | None = None
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)
    closed_at: str | None = None
    labels: list[str] = field(default_factory=list)
    reactions: list[Reaction] = field(default_factory=list)
    pr: PullInfo | None = None


@dataclass
class Label:
    id: int
    name: str
    color: str = "ededed"
    description: str | None = None


@dataclass
class Repo:
    id: int
    full_name: str
    default_branch: str
    git_dir: Path | None
    collaborators: dict[str, str] = field(default_factory=dict)
    private: bool = False
    parent: str | None = None  # full_name of the repository this one is a fork of
    owner_type: str = "User"
    non_collaborator_permission: str = "none"
    issues: dict[int, Issue] = field(default_factory=dict)
    comments: dict[int, Comment] = field(default_factory=dict)
    deleted_comments: list[dict[str, Any]] = field(default_factory=list)
    labels: dict[str, Label] = field(default_factory=dict)  # keyed by lower-cased name
    workflows: dict[int, Workflow] = field(default_factory=dict)
    dispatches: list[dict[str, Any]] = field(default_factory=list)
    next_number: int = 1
    created_at: str = field(default_factory=now_iso)

    @property
    def owner(self) -> str:
        return self.full_name.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.full_name.split("/", 1)[1]


@dataclass
class FailRule:
    id: int
    method: str | None
    path_regex: re.Pattern[str]
    status: int
    times: int
    rate_limited: bool = False
    rate_limit: str = "secondary"  # or "primary"
    retry_after: int | None = 1
    reset_in: int = 1
    message: str | None = None
    after: bool = False  # perform the real request, then answer with the failure
    skip: int = 0  # let this many matching requests through first: the failure hits the (skip+1)th
    hang: float = 0.0  # seconds to hold the connection, then close it without an answer (a timeout)
    hits: int = 0

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "method": self.method,
            "path_regex": self.path_regex.pattern,
            "status": self.status,
            "times_left": self.times,
            "hits": self.hits,
            "rate_limited": self.rate_limited,
            "rate_limit": self.rate_limit,
            "after": self.after,
            "skip": self.skip,
            "hang": self.hang,
        }


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        *,
        errors: list[dict[str, Any]] | None = None,
        doc: str = DOCS,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        self.doc = doc
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"message": self.message}
        if self.errors is not None:
            out["errors"] = self.errors
        out["documentation_url"] = self.doc
        out["status"] = str(self.status)
        return out


def not_found(doc: str = DOCS) -> ApiError:
    return ApiError(404, "Not Found", doc=doc)


def validation_failed(*errors: dict[str, Any], doc: str = DOCS) -> ApiError:
    return ApiError(422, "Validation Failed", errors=list(errors), doc=doc)


@dataclass
class Workflow:
    id: int
    name: str
    path: str
    inputs: list[str] | None = None  # None: any input is accepted
    dispatchable: bool = True  # has an `on: workflow_dispatch` trigger
    state: str = "active"


@dataclass
class App:
    id: int
    slug: str
    name: str
    public_key: tuple[int, int]  # RSA (n, e)
    token_ttl: int = 3600


@dataclass
class Installation:
    id: int
    account: str
    account_type: str = "Organization"
    repositories: list[str] | None = None  # full names; None: all of the account's repositories
    permissions: dict[str, str] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)
    created_at: str = field(default_factory=now_iso)

    def covers(self, full_name: str) -> bool:
        if self.repositories is None:
            return full_name.split("/", 1)[0].lower() == self.account.lower()
        return full_name.lower() in {r.lower() for r in self.repositories}


@dataclass
class AppToken:
    token: str
    installation_id: int
    expires_at: float
    permissions: dict[str, str]
    repositories: list[str] | None  # narrowed to these full names, or None: the installation's

    def covers(self, installation: Installation, full_name: str) -> bool:
        if self.repositories is not None and full_name.lower() not in {r.lower() for r in self.repositories}:
            return False
        return installation.covers(full_name)


@dataclass
class Principal:
    kind: str  # token | app | installation
    installation_id: int | None = None
    issued: AppToken | None = None  # the installation token presented

    def describe(self) -> str:
        return f"installation:{self.installation_id}" if self.kind == "installation" else self.kind


@dataclass
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Req:
    method: str
    path: str  # decoded, without the /api/v3 prefix
    query: dict[str, str]
    raw_body: bytes
    principal: Principal | None = None

    def json(self) -> Any:
        if not self.raw_body.strip():
            return {}
        try:
            return json.loads(self.raw_body)
        except ValueError as exc:
            raise ApiError(400, "Problems parsing JSON") from exc

    def obj(self) -> dict[str, Any]:
        data = self.json()
        if not isinstance(data, dict):
            raise ApiError(400, "Problems parsing JSON")
        return data


# ----------------------------------------------------------------------------------------- store


class Store:
    """All fake-GitHub state; every public method runs under ``self.lock``."""

    def __init__(self, seed: dict[str, Any], *, base_dir: Path) -> None:
        self.lock = threading.RLock()
        self.base_dir = base_dir
        self.url = ""
        self.api_url = ""
        self.token: str = seed.get("token", "ghs_fake_token")
        self.bot_login: str = seed.get("bot_login", "github-actions[bot]")
        self.repos: dict[str, Repo] = {}
        self.user_ids: dict[str, int] = {"github-actions[bot]": 41898282}
        self.ids = {
            kind: itertools.count(start)
            for kind, start in {
                "user": 1001,
                "repo": 100001,
                "issue": 2000001,
                "pull": 2500001,
                "comment": 3000001,
                "reaction": 4000001,
                "label": 5000001,
                "rule": 1,
                "request": 1,
            }.items()
        }
        self.requests: list[dict[str, Any]] = []
        self.rules: list[FailRule] = []
        self.rate_used = 0
        self.rate_reset = int(time.time()) + 3600
        self.app: App | None = None
        self.installations: dict[int, Installation] = {}
        self.app_tokens: dict[str, AppToken] = {}
        for repo_seed in seed.get("repos", []):
            self.add_repo(repo_seed)
        if seed.get("app"):
            app = seed["app"]
            self.app = App(
                id=int(app["id"]),
                slug=app.get("slug", "selfheal"),
                name=app.get("name", app.get("slug", "selfheal")),
                public_key=rsa_public_key(app["public_key"]),
                token_ttl=int(app.get("token_ttl", 3600)),
            )
        for inst in seed.get("installations", []):
            self.installations[int(inst["id"])] = Installation(
                id=int(inst["id"]),
                account=inst["account"],
                account_type=inst.get("account_type", "Organization"),
                repositories=inst.get("repositories"),
                permissions=dict(inst.get("permissions") or APP_PERMISSIONS),
                events=list(inst.get("events") or ["issue_comment", "workflow_run", "workflow_dispatch"]),
            )

    # -- ids / users -----------------------------------------------------------------------

    def next_id(self, kind: str) -> int:
        return next(self.ids[kind])

    def user_id(self, login: str) -> int:
        key = login.lower()
        if key not in self.user_ids:
            self.user_ids[key] = self.next_id("user")
        return self.user_ids[key]

    def user_json(self, login: str, user_type: str | None = None) -> dict[str, Any]:
        uid = self.user_id(login)
        api = f"{self.api_url}/users/{quote(login)}"
        is_bot = login.endswith("[bot]")
        kind = user_type or ("Bot" if is_bot else "User")
        html = f"{self.url}/apps/{login[: -len('[bot]')]}" if is_bot else f"{self.url}/{login}"
        return {
            "login": login,
            "id": uid,
            "node_id": node_id("U" if kind != "Bot" else "BOT", uid),
            "avatar_url": f"{self.url}/avatars/u/{uid}?v=4",
            "gravatar_id": "",
            "url": api,
            "html_url": html,
            "followers_url": f"{api}/followers",
            "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}",
            "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions",
            "organizations_url": f"{api}/orgs",
            "repos_url": f"{api}/repos",
            "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events",
            "type": kind,
            "user_view_type": "public",
            "site_admin": False,
        }

    # -- seeding ---------------------------------------------------------------------------

    def add_repo(self, seed: dict[str, Any]) -> Repo:
        full_name = seed["full_name"]
        git_dir = seed.get("git_dir")
        path: Path | None = None
        if git_dir:
            path = Path(git_dir)
            if not path.is_absolute():
                path = (self.base_dir / path).resolve()
        repo = Repo(
            id=self.next_id("repo"),
            full_name=full_name,
            default_branch=seed.get("default_branch", "main"),
            git_dir=path,
            collaborators={k: v for k, v in seed.get("collaborators", {}).items()},
            private=bool(seed.get("private", False)),
            parent=seed.get("parent") or seed.get("fork_of"),
            owner_type=seed.get("owner_type", "User"),
            non_collaborator_permission=seed.get("non_collaborator_permission", "none"),
        )
        for role in repo.collaborators.values():
            if role not in ROLE_TO_PERMISSION:
                raise ValueError(f"{full_name}: unknown collaborator role {role!r}")
        self.repos[full_name.lower()] = repo
        for label in seed.get("labels", []):
            self.ensure_label(repo, label if isinstance(label, str) else label["name"], label)
        for issue_seed in seed.get("issues", []):
            self.add_issue(repo, issue_seed)
        for pull_seed in seed.get("pulls", []):
            self.add_pull(repo, pull_seed)
        for wf in seed.get("workflows", []):
            workflow = Workflow(
                id=int(wf.get("id") or 160000 + len(repo.workflows) + 1),
                name=wf.get("name", Path(wf["path"]).stem),
                path=wf["path"],
                inputs=wf.get("inputs"),
                dispatchable=bool(wf.get("dispatchable", True)),
            )
            repo.workflows[workflow.id] = workflow
        return repo

    # -- the GitHub App ----------------------------------------------------------------------

    def installation_for(self, full_name: str) -> Installation | None:
        for installation in self.installations.values():
            if installation.covers(full_name):
                return installation
        return None

    def token_principal(self, token: str) -> tuple[Principal | None, str]:
        """The principal a token or JWT stands for, or (None, GitHub's message)."""
        if self.token and hmac.compare_digest(token.encode(), self.token.encode()):
            return Principal("token"), ""
        if token.count(".") == 2:
            if self.app is None:
                return None, "A JSON web token could not be decoded"
            message = check_app_jwt(token, self.app)
            return (None, message) if message else (Principal("app"), "")
        issued = self.app_tokens.get(token)
        if issued is None or issued.expires_at <= time.time():
            return None, "Bad credentials"
        return Principal("installation", issued.installation_id, issued), ""

    def issue_token(
        self, installation: Installation, repositories: list[str] | None, permissions: dict[str, str]
    ) -> AppToken:
        assert self.app is not None
        token = AppToken(
            token="ghs_" + secrets.token_urlsafe(27).replace("-", "a").replace("_", "b")[:36],
            installation_id=installation.id,
            expires_at=time.time() + self.app.token_ttl,
            permissions=permissions,
            repositories=repositories,
        )
        self.app_tokens[token.token] = token
        return token

    def app_json(self) -> dict[str, Any]:
        assert self.app is not None
        app = self.app
        return {
            "id": app.id,
            "slug": app.slug,
            "node_id": node_id("A", app.id),
            "client_id": f"Iv1.{app.id:016x}",
            "owner": self.user_json("acme", "Organization"),
            "name": app.name,
            "description": "",
            "external_url": f"{self.url}/apps/{app.slug}",
            "html_url": f"{self.url}/apps/{app.slug}",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "permissions": dict(APP_PERMISSIONS),
            "events": ["issue_comment", "workflow_run", "workflow_dispatch"],
            "installations_count": len(self.installations),
        }

    def installation_json(self, installation: Installation) -> dict[str, Any]:
        assert self.app is not None
        return {
            "id": installation.id,
            "account": self.user_json(installation.account, installation.account_type),
            "repository_selection": "all" if installation.repositories is None else "selected",
            "access_tokens_url": f"{self.api_url}/app/installations/{installation.id}/access_tokens",
            "repositories_url": f"{self.api_url}/installation/repositories",
            "html_url": f"{self.url}/organizations/{installation.account}/settings/installations/"
            f"{installation.id}",
            "app_id": self.app.id,
            "app_slug": self.app.slug,
            "target_id": self.user_id(installation.account),
            "target_type": installation.account_type,
            "permissions": dict(installation.permissions),
            "events": list(installation.events),
            "created_at": installation.created_at,
            "updated_at": installation.created_at,
            "single_file_name": None,
            "has_multiple_single_files": False,
            "single_file_paths": [],
            "suspended_by": None,
            "suspended_at": None,
        }

    def workflow_json(self, repo: Repo, workflow: Workflow) -> dict[str, Any]:
        api = self.repo_api(repo)
        return {
            "id": workflow.id,
            "node_id": node_id("W", workflow.id),
            "name": workflow.name,
            "path": workflow.path,
            "state": workflow.state,
            "created_at": repo.created_at,
            "updated_at": repo.created_at,
            "url": f"{api}/actions/workflows/{workflow.id}",
            "html_url": f"{self.url}/{repo.full_name}/blob/{repo.default_branch}/{workflow.path}",
            "badge_url": f"{self.url}/{repo.full_name}/workflows/{quote(workflow.name)}/badge.svg",
        }

    def take_number(self, repo: Repo, wanted: int | None) -> int:
        if wanted is None:
            number = repo.next_number
        else:
            number = int(wanted)
            if number in repo.issues:
                raise ValueError(f"{repo.full_name}: number {number} is already taken")
        repo.next_number = max(repo.next_number, number + 1)
        return number

    def add_issue(self, repo: Repo, seed: dict[str, Any]) -> Issue:
        stamp = seed.get("created_at") or now_iso()
        issue = Issue(
            number=self.take_number(repo, seed.get("number")),
            id=self.next_id("issue"),
            title=seed.get("title", "Untitled"),
            body=seed.get("body"),
            user=seed.get("user", "octocat"),
            state=seed.get("state", "open"),
            created_at=stamp,
            updated_at=seed.get("updated_at") or stamp,
        )
        if issue.state == "closed":
            issue.closed_at = stamp
        repo.issues[issue.number] = issue
        for name in seed.get("labels", []):
            self.ensure_label(repo, name)
            issue.labels.append(name)
        for comment in seed.get("comments", []):
            self.add_comment(repo, issue.number, comment.get("user", "octocat"), comment["body"], comment)
        return issue

    def add_pull(self, repo: Repo, seed: dict[str, Any]) -> Issue:
        issue = self.add_issue(repo, seed)
        head_full_name = seed.get("head_full_name") or repo.full_name
        issue.pr = PullInfo(
            id=self.next_id("pull"),
            head_ref=seed.get("head_ref", "feature"),
            head_full_name=head_full_name,
            head_sha=seed.get("head_sha"),
            base_ref=seed.get("base_ref") or repo.default_branch,
            draft=bool(seed.get("draft", False)),
            maintainer_can_modify=bool(seed.get("maintainer_can_modify", False)),
            requested_reviewers=list(seed.get("requested_reviewers", [])),
            merged=bool(seed.get("merged", False)),
        )
        self.ensure_fork(repo, head_full_name)
        self.pr_head_sha(repo, issue)
        return issue

    def ensure_fork(self, base: Repo, head_full_name: str) -> None:
        if head_full_name.lower() == base.full_name.lower():
            return
        head = self.repos.get(head_full_name.lower())
        if head is None:
            head = Repo(
                id=self.next_id("repo"),
                full_name=head_full_name,
                default_branch=base.default_branch,
                git_dir=None,
                parent=base.full_name,
            )
            self.repos[head_full_name.lower()] = head
        elif head.parent is None:
            head.parent = base.full_name

    def add_comment(
        self, repo: Repo, number: int, user: str, body: str, seed: dict[str, Any] | None = None
    ) -> Comment:
        seed = seed or {}
        stamp = seed.get("created_at") or now_iso()
        if seed.get("id") is not None and int(seed["id"]) in repo.comments:
            raise ValueError(f"{repo.full_name}: comment id {seed['id']} is already taken")
        comment = Comment(
            id=int(seed.get("id") or self.next_id("comment")),
            issue_number=number,
            user=user,
            body=body,
            created_at=stamp,
            updated_at=seed.get("updated_at") or stamp,
        )
        repo.comments[comment.id] = comment
        for reaction in seed.get("reactions", []):
            self.add_reaction(comment.reactions, reaction["user"], reaction["content"])
        return comment

    def add_reaction(self, reactions: list[Reaction], user: str, content: str) -> tuple[Reaction, bool]:
        for existing in reactions:
            if existing.user.lower() == user.lower() and existing.content == content:
                return existing, False
        reaction = Reaction(id=self.next_id("reaction"), user=user, content=content, created_at=now_iso())
        reactions.append(reaction)
        return reaction, True

    def ensure_label(self, repo: Repo, name: str, seed: Any = None) -> Label:
        key = name.lower()
        if key not in repo.labels:
            extra = seed if isinstance(seed, dict) else {}
            repo.labels[key] = Label(
                id=self.next_id("label"),
                name=name,
                color=extra.get("color", "ededed"),
                description=extra.get("description"),
            )
        return repo.labels[key]

    def seed(self, payload: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "repo" in payload:
            out["repo"] = self.add_repo(payload["repo"]).full_name
        if "full_name" not in payload:
            return out
        repo = self.repos[payload["full_name"].lower()]
        if "collaborators" in payload:
            repo.collaborators.update(payload["collaborators"])
        if "issue" in payload:
            out["issue"] = self.add_issue(repo, payload["issue"]).number
        if "pull" in payload:
            out["pull"] = self.add_pull(repo, payload["pull"]).number
        if "comment" in payload:
            c = payload["comment"]
            if int(c["issue_number"]) not in repo.issues:
                raise KeyError(f"no issue #{c['issue_number']} in {repo.full_name}")
            out["comment"] = self.add_comment(
                repo, int(c["issue_number"]), c.get("user", "octocat"), c["body"], c
            ).id
        if "reaction" in payload:
            r = payload["reaction"]
            if "comment_id" in r:
                target = repo.comments[int(r["comment_id"])].reactions
            else:
                target = repo.issues[int(r["issue_number"])].reactions
            out["reaction"] = self.add_reaction(target, r["user"], r["content"])[0].id
        return out

    # -- git -------------------------------------------------------------------------------

    def git(self, repo: Repo, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        assert repo.git_dir is not None
        return subprocess.run(
            ["git", f"--git-dir={repo.git_dir}", *args],
            capture_output=True,
            text=True,
            env=git_env(),
            check=check,
            timeout=60,
        )

    def git_in(
        self, repo: Repo, *args: str, input: bytes, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """git with bytes on stdin (object writes)."""
        assert repo.git_dir is not None
        return subprocess.run(
            ["git", f"--git-dir={repo.git_dir}", *args],
            input=input,
            capture_output=True,
            env={**git_env(), **(env or {})},
            check=False,
            timeout=60,
        )

    def object_type(self, repo: Repo, sha: str) -> str | None:
        if repo.git_dir is None or not re.fullmatch(r"[0-9a-f]{40}", sha):
            return None
        done = self.git(repo, "cat-file", "-t", sha)
        return done.stdout.strip() if done.returncode == 0 else None

    def rev(self, repo: Repo | None, ref: str) -> str | None:
        if repo is None or repo.git_dir is None:
            return None
        done = self.git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        sha = done.stdout.strip()
        return sha if done.returncode == 0 and sha else None

    def branch_sha(self, repo: Repo | None, branch: str) -> str | None:
        return self.rev(repo, f"refs/heads/{branch}")

    def branches(self, repo: Repo) -> dict[str, str]:
        if repo.git_dir is None:
            return {}
        done = self.git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/")
        out: dict[str, str] = {}
        for line in done.stdout.splitlines():
            ref, _, sha = line.partition(" ")
            out[ref.removeprefix("refs/heads/")] = sha
        return out

    def refs(self, repo: Repo, prefix: str) -> dict[str, tuple[str, str]]:
        """{full ref name: (sha, object type)} for refs under refs/<prefix>."""
        if repo.git_dir is None:
            return {}
        done = self.git(
            repo, "for-each-ref", "--format=%(refname) %(objectname) %(objecttype)", f"refs/{prefix}"
        )
        out: dict[str, tuple[str, str]] = {}
        for line in done.stdout.splitlines():
            ref, sha, kind = line.split(" ")
            if ref.startswith(f"refs/{prefix}"):
                out[ref] = (sha, kind)
        return out

    def pr_head_sha(self, repo: Repo, issue: Issue) -> str:
        pr = issue.pr
        assert pr is not None
        head_repo = self.repos.get(pr.head_full_name.lower())
        if issue.state == "open" or pr.head_sha is None:  # closed PRs keep their last head
            live = self.branch_sha(head_repo, pr.head_ref)
            if live and live != pr.head_sha:
                pr.head_sha = live
                self.sync_pull_ref(repo, issue, head_repo)
        if pr.head_sha is None:
            pr.head_sha = self.rev(repo, f"refs/pull/{issue.number}/head")
        if pr.head_sha is None and (head_repo is None or head_repo.git_dir is None):
            # A fork without a git dir of its own: take the same-named branch of the base repository.
            pr.head_sha = self.branch_sha(repo, pr.head_ref)
            if pr.head_sha and repo.git_dir is not None:
                self.git(repo, "update-ref", f"refs/pull/{issue.number}/head", pr.head_sha)
        return pr.head_sha or ""

    def sync_pull_ref(self, repo: Repo, issue: Issue, head_repo: Repo | None) -> None:
        """Mirror GitHub's refs/pull/N/head in the base repository (best effort)."""
        pr = issue.pr
        if repo.git_dir is None or pr is None or pr.head_sha is None or head_repo is None:
            return
        ref = f"refs/pull/{issue.number}/head"
        if head_repo is repo:
            self.git(repo, "update-ref", ref, pr.head_sha)
        elif head_repo.git_dir is not None:
            self.git(repo, "fetch", "--quiet", "--no-tags", str(head_repo.git_dir), f"+{pr.head_sha}:{ref}")

    def commit_info(self, repo: Repo, sha: str) -> dict[str, Any] | None:
        full = self.rev(repo, sha)
        if full is None:
            return None
        fmt = "%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B"
        done = self.git(repo, "show", "-s", f"--format={fmt}", full)
        parts = done.stdout.split("\x00")
        if done.returncode != 0 or len(parts) < 10:
            return None
        keys = ("sha", "tree", "parents", "an", "ae", "ad", "cn", "ce", "cd", "message")
        info = dict(zip(keys[:9], parts[:9], strict=True))
        info["message"] = "\x00".join(parts[9:]).rstrip("\n")
        return info

    # -- JSON shapes -----------------------------------------------------------------------

    def repo_api(self, repo: Repo) -> str:
        return f"{self.api_url}/repos/{repo.full_name}"

    def repo_json(self, repo: Repo, *, with_parent: bool = True) -> dict[str, Any]:
        api = self.repo_api(repo)
        html = f"{self.url}/{repo.full_name}"
        stamp = repo.created_at
        out: dict[str, Any] = {
            "id": repo.id,
            "node_id": node_id("R", repo.id),
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
            "owner": self.user_json(repo.owner, repo.owner_type),
            "html_url": html,
            "description": None,
            "fork": repo.parent is not None,
            "url": api,
            "forks_url": f"{api}/forks",
            "keys_url": f"{api}/keys{{/key_id}}",
            "collaborators_url": f"{api}/collaborators{{/collaborator}}",
            "teams_url": f"{api}/teams",
            "hooks_url": f"{api}/hooks",
            "issue_events_url": f"{api}/issues/events{{/number}}",
            "events_url": f"{api}/events",
            "assignees_url": f"{api}/assignees{{/user}}",
            "branches_url": f"{api}/branches{{/branch}}",
            "tags_url": f"{api}/tags",
            "blobs_url": f"{api}/git/blobs{{/sha}}",
            "git_tags_url": f"{api}/git/tags{{/sha}}",
            "git_refs_url": f"{api}/git/refs{{/sha}}",
            "trees_url": f"{api}/git/trees{{/sha}}",
            "statuses_url": f"{api}/statuses/{{sha}}",
            "languages_url": f"{api}/languages",
            "stargazers_url": f"{api}/stargazers",
            "contributors_url": f"{api}/contributors",
            "subscribers_url": f"{api}/subscribers",
            "subscription_url": f"{api}/subscription",
            "commits_url": f"{api}/commits{{/sha}}",
            "git_commits_url": f"{api}/git/commits{{/sha}}",
            "comments_url": f"{api}/comments{{/number}}",
            "issue_comment_url": f"{api}/issues/comments{{/number}}",
            "contents_url": f"{api}/contents/{{+path}}",
            "compare_url": f"{api}/compare/{{base}}...{{head}}",
            "merges_url": f"{api}/merges",
            "archive_url": f"{api}/{{archive_format}}{{/ref}}",
            "downloads_url": f"{api}/downloads",
            "issues_url": f"{api}/issues{{/number}}",
            "pulls_url": f"{api}/pulls{{/number}}",
            "milestones_url": f"{api}/milestones{{/number}}",
            "notifications_url": f"{api}/notifications{{?since,all,participating}}",
            "labels_url": f"{api}/labels{{/name}}",
            "releases_url": f"{api}/releases{{/id}}",
            "deployments_url": f"{api}/deployments",
            "created_at": stamp,
            "updated_at": stamp,
            "pushed_at": stamp,
            "git_url": f"git://127.0.0.1/{repo.full_name}.git",
            "ssh_url": f"git@127.0.0.1:{repo.full_name}.git",
            "clone_url": f"{self.url}/{repo.full_name}.git",
            "svn_url": html,
            "homepage": None,
            "size": 0,
            "stargazers_count": 0,
            "watchers_count": 0,
            "language": "Python",
            "has_issues": True,
            "has_projects": True,
            "has_downloads": True,
            "has_wiki": False,
            "has_pages": False,
            "has_discussions": False,
            "forks_count": 0,
            "mirror_url": None,
            "archived": False,
            "disabled": False,
            "open_issues_count": sum(1 for i in repo.issues.values() if i.state == "open"),
            "license": None,
            "allow_forking": True,
            "is_template": False,
            "web_commit_signoff_required": False,
            "topics": [],
            "visibility": "private" if repo.private else "public",
            "forks": 0,
            "open_issues": sum(1 for i in repo.issues.values() if i.state == "open"),
            "watchers": 0,
            "default_branch": repo.default_branch,
            # What an installation token with contents/pull-requests: write sees.
            "permissions": {"admin": False, "maintain": False, "push": True, "triage": True, "pull": True},
        }
        if with_parent and repo.parent:
            parent = self.repos.get(repo.parent.lower())
            if parent is not None:
                out["parent"] = self.repo_json(parent, with_parent=False)
                out["source"] = out["parent"]
        return out

    def author_association(self, repo: Repo, login: str) -> str:
        if login.lower() == repo.owner.lower():
            return "OWNER"
        if self.role(repo, login) != "none":
            return "COLLABORATOR"
        return "NONE"

    def role(self, repo: Repo, login: str) -> str:
        for name, role in repo.collaborators.items():
            if name.lower() == login.lower():
                return role
        if login.lower() == repo.owner.lower():
            return "admin"
        return repo.non_collaborator_permission

    def reactions_summary(self, url: str, reactions: list[Reaction]) -> dict[str, Any]:
        out: dict[str, Any] = {"url": url, "total_count": len(reactions)}
        for content in REACTIONS:
            out[content] = sum(1 for r in reactions if r.content == content)
        return out

    def reaction_json(self, reaction: Reaction) -> dict[str, Any]:
        return {
            "id": reaction.id,
            "node_id": node_id("REA", reaction.id),
            "user": self.user_json(reaction.user),
            "content": reaction.content,
            "created_at": reaction.created_at,
        }

    def label_json(self, repo: Repo, name: str) -> dict[str, Any]:
        label = self.ensure_label(repo, name)
        return {
            "id": label.id,
            "node_id": node_id("LA", label.id),
            "url": f"{self.repo_api(repo)}/labels/{quote(label.name, safe='')}",
            "name": label.name,
            "color": label.color,
            "default": False,
            "description": label.description,
        }

    def issue_html(self, repo: Repo, issue: Issue) -> str:
        kind = "pull" if issue.pr else "issues"
        return f"{self.url}/{repo.full_name}/{kind}/{issue.number}"

    def comment_json(self, repo: Repo, comment: Comment) -> dict[str, Any]:
        api = self.repo_api(repo)
        issue = repo.issues[comment.issue_number]
        url = f"{api}/issues/comments/{comment.id}"
        return {
            "url": url,
            "html_url": f"{self.issue_html(repo, issue)}#issuecomment-{comment.id}",
            "issue_url": f"{api}/issues/{comment.issue_number}",
            "id": comment.id,
            "node_id": node_id("IC", comment.id),
            "user": self.user_json(comment.user),
            "created_at": comment.created_at,
            "updated_at": comment.updated_at,
            "author_association": self.author_association(repo, comment.user),
            "body": comment.body,
            "reactions": self.reactions_summary(f"{url}/reactions", comment.reactions),
            "performed_via_github_app": None,
        }

    def issue_json(self, repo: Repo, issue: Issue) -> dict[str, Any]:
        api = self.repo_api(repo)
        url = f"{api}/issues/{issue.number}"
        out: dict[str, Any] = {
            "url": url,
            "repository_url": api,
            "labels_url": f"{url}/labels{{/name}}",
            "comments_url": f"{url}/comments",
            "events_url": f"{url}/events",
            "html_url": self.issue_html(repo, issue),
            "id": issue.id,
            "node_id": node_id("I", issue.id),
            "number": issue.number,
            "title": issue.title,
            "user": self.user_json(issue.user),
            "labels": [self.label_json(repo, name) for name in issue.labels],
            "state": issue.state,
            "locked": False,
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "comments": sum(1 for c in repo.comments.values() if c.issue_number == issue.number),
            "created_at": issue.created_at,
            "updated_at": issue.updated_at,
            "closed_at": issue.closed_at,
            "author_association": self.author_association(repo, issue.user),
            "active_lock_reason": None,
            "body": issue.body,
            "closed_by": None,
            "reactions": self.reactions_summary(f"{url}/reactions", issue.reactions),
            "timeline_url": f"{url}/timeline",
            "performed_via_github_app": None,
            "state_reason": issue.state_reason,
        }
        if issue.pr is not None:
            html = self.issue_html(repo, issue)
            out["draft"] = issue.pr.draft
            out["pull_request"] = {
                "url": f"{api}/pulls/{issue.number}",
                "html_url": html,
                "diff_url": f"{html}.diff",
                "patch_url": f"{html}.patch",
                "merged_at": None,
            }
        return out

    def pull_json(self, repo: Repo, issue: Issue, *, full: bool = True) -> dict[str, Any]:
        pr = issue.pr
        assert pr is not None
        api = self.repo_api(repo)
        html = self.issue_html(repo, issue)
        url = f"{api}/pulls/{issue.number}"
        head_sha = self.pr_head_sha(repo, issue)
        head_repo = self.repos.get(pr.head_full_name.lower())
        base_sha = self.branch_sha(repo, pr.base_ref) or ""
        out: dict[str, Any] = {
            "url": url,
            "id": pr.id,
            "node_id": node_id("PR", pr.id),
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{api}/issues/{issue.number}",
            "commits_url": f"{url}/commits",
            "review_comments_url": f"{url}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{api}/issues/{issue.number}/comments",
            "statuses_url": f"{api}/statuses/{head_sha}",
            "number": issue.number,
            "state": issue.state,
            "locked": False,
            "title": issue.title,
            "user": self.user_json(issue.user),
            "body": issue.body,
            "labels": [self.label_json(repo, name) for name in issue.labels],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": issue.created_at,
            "updated_at": issue.updated_at,
            "closed_at": issue.closed_at,
            "merged_at": None,
            "merge_commit_sha": None,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [self.user_json(login) for login in pr.requested_reviewers],
            "requested_teams": [],
            "head": {
                "label": f"{pr.head_full_name.split('/')[0]}:{pr.head_ref}",
                "ref": pr.head_ref,
                "sha": head_sha,
                "user": self.user_json(pr.head_full_name.split("/")[0]),
                "repo": self.repo_json(head_repo) if head_repo is not None else None,
            },
            "base": {
                "label": f"{repo.owner}:{pr.base_ref}",
                "ref": pr.base_ref,
                "sha": base_sha,
                "user": self.user_json(repo.owner, repo.owner_type),
                "repo": self.repo_json(repo),
            },
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "issue": {"href": f"{api}/issues/{issue.number}"},
                "comments": {"href": f"{api}/issues/{issue.number}/comments"},
                "review_comments": {"href": f"{url}/comments"},
                "review_comment": {"href": f"{api}/pulls/comments{{/number}}"},
                "commits": {"href": f"{url}/commits"},
                "statuses": {"href": f"{api}/statuses/{head_sha}"},
            },
            "author_association": self.author_association(repo, issue.user),
            "auto_merge": None,
            "draft": pr.draft,
        }
        if full:
            commits = self.pull_commit_shas(repo, issue)
            files = self.pull_files(repo, issue)
            out.update(
                merged=pr.merged,
                mergeable=True,
                rebaseable=True,
                mergeable_state="clean",
                merged_by=None,
                comments=sum(1 for c in repo.comments.values() if c.issue_number == issue.number),
                review_comments=0,
                maintainer_can_modify=pr.maintainer_can_modify,
                commits=len(commits),
                additions=sum(f["additions"] for f in files),
                deletions=sum(f["deletions"] for f in files),
                changed_files=len(files),
            )
        return out

    def pull_range(self, repo: Repo, issue: Issue) -> tuple[str, str] | None:
        """(merge base, head) inside the base repository, or None when git cannot tell."""
        assert issue.pr is not None
        head_sha = self.pr_head_sha(repo, issue)
        base_sha = self.branch_sha(repo, issue.pr.base_ref)
        if repo.git_dir is None or not head_sha or not base_sha or self.rev(repo, head_sha) is None:
            return None
        done = self.git(repo, "merge-base", base_sha, head_sha)
        return (done.stdout.strip() or base_sha, head_sha)

    def pull_commit_shas(self, repo: Repo, issue: Issue) -> list[str]:
        span = self.pull_range(repo, issue)
        if span is None:
            return []
        done = self.git(repo, "rev-list", "--reverse", f"{span[0]}..{span[1]}")
        return done.stdout.split()

    def pull_files(self, repo: Repo, issue: Issue) -> list[dict[str, Any]]:
        span = self.pull_range(repo, issue)
        if span is None:
            return []
        base, head = span
        api = self.repo_api(repo)
        html = f"{self.url}/{repo.full_name}"
        status_names = {"A": "added", "D": "removed", "M": "modified", "T": "changed"}
        numstat = self.git(repo, "diff", "--no-renames", "--numstat", base, head).stdout.splitlines()
        names = self.git(repo, "diff", "--no-renames", "--name-status", base, head).stdout.splitlines()
        files = []
        for counts, kinds in zip(numstat, names, strict=False):
            added, deleted, path = counts.split("\t", 2)
            kind = kinds.split("\t", 1)[0][:1]
            adds = int(added) if added.isdigit() else 0
            dels = int(deleted) if deleted.isdigit() else 0
            blob = self.git(repo, "rev-parse", f"{base if kind == 'D' else head}:{path}").stdout.strip()
            patch = self.git(repo, "diff", "--no-renames", base, head, "--", path).stdout
            hunk = patch.find("\n@@")
            files.append(
                {
                    "sha": blob,
                    "filename": path,
                    "status": status_names.get(kind, "modified"),
                    "additions": adds,
                    "deletions": dels,
                    "changes": adds + dels,
                    "blob_url": f"{html}/blob/{head}/{quote(path)}",
                    "raw_url": f"{html}/raw/{head}/{quote(path)}",
                    "contents_url": f"{api}/contents/{quote(path)}?ref={head}",
                    "patch": patch[hunk + 1 :] if hunk != -1 else "",
                }
            )
        return files

    def commit_json(self, repo: Repo, info: dict[str, Any]) -> dict[str, Any]:
        api = self.repo_api(repo)
        html = f"{self.url}/{repo.full_name}"
        sha = info["sha"]
        return {
            "sha": sha,
            "node_id": node_id("C", int(sha[:8], 16)),
            "commit": {
                "author": {"name": info["an"], "email": info["ae"], "date": info["ad"]},
                "committer": {"name": info["cn"], "email": info["ce"], "date": info["cd"]},
                "message": info["message"],
                "tree": {"sha": info["tree"], "url": f"{api}/git/trees/{info['tree']}"},
                "url": f"{api}/git/commits/{sha}",
                "comment_count": 0,
                "verification": {
                    "verified": False,
                    "reason": "unsigned",
                    "signature": None,
                    "payload": None,
                    "verified_at": None,
                },
            },
            "url": f"{api}/commits/{sha}",
            "html_url": f"{html}/commit/{sha}",
            "comments_url": f"{api}/commits/{sha}/comments",
            "author": None,
            "committer": None,
            "parents": [
                {"sha": p, "url": f"{api}/commits/{p}", "html_url": f"{html}/commit/{p}"}
                for p in info["parents"].split()
            ],
            "stats": {"total": 0, "additions": 0, "deletions": 0},
            "files": [],
        }

    def tree_json(self, repo: Repo, sha: str, *, recursive: bool = False) -> dict[str, Any]:
        api = self.repo_api(repo)
        listed = self.git(repo, "ls-tree", "-z", "-l", *(["-r", "-t"] if recursive else []), sha).stdout
        entries = []
        for line in filter(None, listed.split("\0")):
            meta, _, path = line.partition("\t")
            mode, kind, obj, size = meta.split()
            entry: dict[str, Any] = {"path": path, "mode": mode, "type": kind, "sha": obj}
            if kind == "blob":
                entry["size"] = int(size)
            entry["url"] = f"{api}/git/{kind}s/{obj}" if kind in ("blob", "tree") else None
            if entry["url"] is None:
                del entry["url"]  # a submodule's commit has no url on GitHub either
            entries.append(entry)
        return {"sha": sha, "url": f"{api}/git/trees/{sha}", "tree": entries, "truncated": False}

    def git_commit_json(self, repo: Repo, info: dict[str, Any]) -> dict[str, Any]:
        """The Git database's commit shape (git/commits), not the REST commit (commits/)."""
        api = self.repo_api(repo)
        html = f"{self.url}/{repo.full_name}"
        sha = info["sha"]
        return {
            "sha": sha,
            "node_id": node_id("C", int(sha[:8], 16)),
            "url": f"{api}/git/commits/{sha}",
            "html_url": f"{html}/commit/{sha}",
            "author": {"name": info["an"], "email": info["ae"], "date": info["ad"]},
            "committer": {"name": info["cn"], "email": info["ce"], "date": info["cd"]},
            "tree": {"sha": info["tree"], "url": f"{api}/git/trees/{info['tree']}"},
            "message": info["message"],
            "parents": [
                {"sha": p, "url": f"{api}/git/commits/{p}", "html_url": f"{html}/commit/{p}"}
                for p in info["parents"].split()
            ],
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        }

    def ref_json(self, repo: Repo, ref: str, sha: str, kind: str = "commit") -> dict[str, Any]:
        api = self.repo_api(repo)
        plural = {"commit": "commits", "tag": "tags", "tree": "trees", "blob": "blobs"}.get(kind, kind)
        return {
            "ref": ref,
            "node_id": node_id("REF", binascii.crc32(f"{repo.full_name}:{ref}".encode())),
            "url": f"{api}/git/{quote(ref)}",
            "object": {"sha": sha, "type": kind, "url": f"{api}/git/{plural}/{sha}"},
        }

    # -- admin view ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Everything, in GitHub's own JSON shapes plus a few fake-only keys (see module docstring)."""
        repos = []
        for repo in self.repos.values():
            pulls, issues, reactions = [], [], []
            for issue in sorted(repo.issues.values(), key=lambda i: i.number):
                comment_ids = sorted(c.id for c in repo.comments.values() if c.issue_number == issue.number)
                for r in issue.reactions:
                    reactions.append(
                        {**self.reaction_json(r), "issue_number": issue.number, "comment_id": None}
                    )
                if issue.pr is None:
                    issues.append({**self.issue_json(repo, issue), "comment_ids": comment_ids})
                    continue
                pr = issue.pr
                pulls.append(
                    {
                        **self.pull_json(repo, issue, full=False),
                        "merged": pr.merged,
                        "maintainer_can_modify": pr.maintainer_can_modify,
                        # fake-only conveniences
                        "head_sha": self.pr_head_sha(repo, issue),
                        "head_full_name": pr.head_full_name,
                        "fork": pr.head_full_name.lower() != repo.full_name.lower(),
                        "comment_ids": comment_ids,
                    }
                )
            comments = []
            for c in sorted(repo.comments.values(), key=lambda c: c.id):
                comments.append(
                    {**self.comment_json(repo, c), "issue_number": c.issue_number, "edits": c.edits}
                )
                for r in c.reactions:
                    reactions.append(
                        {**self.reaction_json(r), "issue_number": c.issue_number, "comment_id": c.id}
                    )
            repos.append(
                {
                    "full_name": repo.full_name,
                    "default_branch": repo.default_branch,
                    "git_dir": str(repo.git_dir) if repo.git_dir else None,
                    "parent": repo.parent,
                    "collaborators": dict(repo.collaborators),
                    "branches": self.branches(repo),
                    "labels": sorted(label.name for label in repo.labels.values()),
                    "pulls": pulls,
                    "issues": issues,
                    "comments": comments,
                    "reactions": sorted(reactions, key=lambda r: r["id"]),
                    "deleted_comments": list(repo.deleted_comments),
                    "workflows": [self.workflow_json(repo, w) for w in repo.workflows.values()],
                    "dispatches": list(repo.dispatches),
                }
            )
        return {
            "url": self.url,
            "api_url": self.api_url,
            "token": self.token,
            "bot_login": self.bot_login,
            "repos": repos,
            "requests": list(self.requests),
            "fail_rules": [rule.describe() for rule in self.rules],
            "rate_limit": {"limit": RATE_LIMIT, "used": self.rate_used, "reset": self.rate_reset},
            "app": {"id": self.app.id, "slug": self.app.slug} if self.app else None,
            "installations": [self.installation_json(i) for i in self.installations.values()]
            if self.app
            else [],
            "app_tokens": [
                {
                    "token": t.token,
                    "installation_id": t.installation_id,
                    "expires_at": t.expires_at,
                    "repositories": t.repositories,
                    "permissions": t.permissions,
                }
                for t in self.app_tokens.values()
            ],
        }


# ------------------------------------------------------------------------------------------- API


Handler = Callable[..., Reply]


class Api:
    """REST routes; each handler gets the request and the route's named groups."""

    def __init__(self, store: Store) -> None:
        self.s = store
        R = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
        table: list[tuple[str, str, Handler]] = [
            ("GET", r"/user", self.get_authenticated_user),
            ("GET", r"/users/(?P<login>[^/]+)", self.get_user),
            ("GET", r"/rate_limit", self.get_rate_limit),
            ("GET", R, self.get_repo),
            ("GET", R + r"/collaborators/(?P<login>[^/]+)/permission", self.get_permission),
            ("GET", R + r"/collaborators/(?P<login>[^/]+)", self.check_collaborator),
            ("GET", R + r"/pulls", self.list_pulls),
            ("POST", R + r"/pulls", self.create_pull),
            ("GET", R + r"/pulls/(?P<number>\d+)", self.get_pull),
            ("PATCH", R + r"/pulls/(?P<number>\d+)", self.update_pull),
            ("GET", R + r"/pulls/(?P<number>\d+)/requested_reviewers", self.get_reviewers),
            ("POST", R + r"/pulls/(?P<number>\d+)/requested_reviewers", self.request_reviewers),
            ("DELETE", R + r"/pulls/(?P<number>\d+)/requested_reviewers", self.remove_reviewers),
            ("GET", R + r"/pulls/(?P<number>\d+)/commits", self.list_pull_commits),
            ("GET", R + r"/pulls/(?P<number>\d+)/files", self.list_pull_files),
            ("GET", R + r"/issues", self.list_issues),
            ("POST", R + r"/issues", self.create_issue),
            ("GET", R + r"/issues/comments", self.list_repo_comments),
            ("GET", R + r"/issues/comments/(?P<cid>\d+)", self.get_comment),
            ("PATCH", R + r"/issues/comments/(?P<cid>\d+)", self.update_comment),
            ("DELETE", R + r"/issues/comments/(?P<cid>\d+)", self.delete_comment),
            ("GET", R + r"/issues/comments/(?P<cid>\d+)/reactions", self.list_comment_reactions),
            ("POST", R + r"/issues/comments/(?P<cid>\d+)/reactions", self.create_comment_reaction),
            (
                "DELETE",
                R + r"/issues/comments/(?P<cid>\d+)/reactions/(?P<rid>\d+)",
                self.delete_comment_reaction,
            ),
            ("GET", R + r"/issues/(?P<number>\d+)", self.get_issue),
            ("PATCH", R + r"/issues/(?P<number>\d+)", self.update_issue),
            ("GET", R + r"/issues/(?P<number>\d+)/comments", self.list_comments),
            ("POST", R + r"/issues/(?P<number>\d+)/comments", self.create_comment),
            ("GET", R + r"/issues/(?P<number>\d+)/reactions", self.list_issue_reactions),
            ("POST", R + r"/issues/(?P<number>\d+)/reactions", self.create_issue_reaction),
            ("DELETE", R + r"/issues/(?P<number>\d+)/reactions/(?P<rid>\d+)", self.delete_issue_reaction),
            ("GET", R + r"/issues/(?P<number>\d+)/labels", self.list_issue_labels),
            ("POST", R + r"/issues/(?P<number>\d+)/labels", self.add_issue_labels),
            ("PUT", R + r"/issues/(?P<number>\d+)/labels", self.set_issue_labels),
            ("DELETE", R + r"/issues/(?P<number>\d+)/labels", self.clear_issue_labels),
            ("DELETE", R + r"/issues/(?P<number>\d+)/labels/(?P<name>.+)", self.remove_issue_label),
            ("GET", R + r"/labels", self.list_labels),
            ("POST", R + r"/labels", self.create_label),
            ("GET", R + r"/labels/(?P<name>.+)", self.get_label),
            ("GET", R + r"/commits/(?P<sha>[^/]+)", self.get_commit),
            ("GET", R + r"/commits/(?P<sha>[^/]+)/pulls", self.commit_pulls),
            ("GET", R + r"/branches", self.list_branches),
            ("GET", R + r"/branches/(?P<branch>.+)", self.get_branch),
            ("POST", R + r"/git/blobs", self.create_blob),
            ("GET", R + r"/git/blobs/(?P<sha>[^/]+)", self.get_blob),
            ("POST", R + r"/git/trees", self.create_tree),
            ("GET", R + r"/git/trees/(?P<sha>[^/]+)", self.get_tree),
            ("POST", R + r"/git/commits", self.create_git_commit),
            ("GET", R + r"/git/commits/(?P<sha>[^/]+)", self.get_git_commit),
            ("GET", R + r"/git/ref/(?P<ref>.+)", self.get_ref),
            ("GET", R + r"/git/refs", self.list_refs),
            ("GET", R + r"/git/refs/(?P<ref>.+)", self.get_refs_legacy),
            ("GET", R + r"/git/matching-refs/(?P<ref>.*)", self.matching_refs),
            ("POST", R + r"/git/refs", self.create_ref),
            ("PATCH", R + r"/git/refs/(?P<ref>.+)", self.update_ref),
            ("DELETE", R + r"/git/refs/(?P<ref>.+)", self.delete_ref),
            ("GET", R + r"/installation", self.get_repo_installation),
            ("GET", R + r"/actions/workflows", self.list_workflows),
            ("GET", R + r"/actions/workflows/(?P<wid>[^/]+)", self.get_workflow),
            ("POST", R + r"/actions/workflows/(?P<wid>[^/]+)/dispatches", self.dispatch_workflow),
            ("GET", r"/app", self.get_app),
            ("GET", r"/app/installations", self.list_installations),
            ("GET", r"/app/installations/(?P<iid>\d+)", self.get_installation),
            ("POST", r"/app/installations/(?P<iid>\d+)/access_tokens", self.create_access_token),
        ]
        self.routes = [(method, re.compile(pattern + r"/?$"), fn) for method, pattern, fn in table]

    def dispatch(self, req: Req) -> Reply:
        for method, pattern, fn in self.routes:
            if method != req.method:
                continue
            m = pattern.fullmatch(req.path)
            if m:
                return fn(req, **m.groupdict())
        raise not_found()

    # -- helpers ---------------------------------------------------------------------------

    def repo(self, owner: str, repo: str) -> Repo:
        found = self.s.repos.get(f"{owner}/{repo}".lower())
        if found is None:
            raise not_found(f"{DOCS}/repos/repos#get-a-repository")
        return found

    def issue(self, repo: Repo, number: str) -> Issue:
        issue = repo.issues.get(int(number))
        if issue is None:
            raise not_found(f"{DOCS}/issues/issues#get-an-issue")
        return issue

    def pull(self, repo: Repo, number: str) -> Issue:
        issue = repo.issues.get(int(number))
        if issue is None or issue.pr is None:
            raise not_found(f"{DOCS}/pulls/pulls#get-a-pull-request")
        return issue

    def comment(self, repo: Repo, cid: str) -> Comment:
        comment = repo.comments.get(int(cid))
        if comment is None:
            raise not_found(f"{DOCS}/issues/comments#get-an-issue-comment")
        return comment

    def paginate(self, req: Req, items: list[Any]) -> Reply:
        try:
            per_page = max(1, min(100, int(req.query.get("per_page", "30"))))
            page = max(1, int(req.query.get("page", "1")))
        except ValueError:
            per_page, page = 30, 1
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        headers: dict[str, str] = {}
        links = []

        def link(p: int, rel: str) -> str:
            query = dict(req.query, page=str(p), per_page=str(per_page))
            return f'<{self.s.api_url}{quote(req.path)}?{urlencode(query)}>; rel="{rel}"'

        if page > 1:
            links += [link(page - 1, "prev"), link(1, "first")]
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if links:
            headers["Link"] = ", ".join(links)
        return Reply(200, chunk, headers)

    @staticmethod
    def body_string(data: dict[str, Any], key: str, resource: str, *, required: bool) -> str | None:
        value = data.get(key)
        if value is None:
            if required:
                raise validation_failed({"resource": resource, "code": "missing_field", "field": key})
            return None
        if not isinstance(value, str):
            raise validation_failed({"resource": resource, "code": "invalid", "field": key})
        return value

    # -- users / meta ----------------------------------------------------------------------

    def get_authenticated_user(self, req: Req) -> Reply:
        if self.s.token.startswith("ghs_"):  # installation tokens cannot read /user
            raise ApiError(403, "Resource not accessible by integration", doc=f"{DOCS}/users/users")
        return Reply(200, self.s.user_json(self.s.bot_login))

    def get_user(self, req: Req, login: str) -> Reply:
        return Reply(200, self.s.user_json(login))

    def get_rate_limit(self, req: Req) -> Reply:
        core = {
            "limit": RATE_LIMIT,
            "used": self.s.rate_used,
            "remaining": RATE_LIMIT - self.s.rate_used,
            "reset": self.s.rate_reset,
        }
        return Reply(200, {"resources": {"core": core, "search": dict(core, limit=30)}, "rate": core})

    # -- repos / collaborators -------------------------------------------------------------

    def get_repo(self, req: Req, owner: str, repo: str) -> Reply:
        return Reply(200, self.s.repo_json(self.repo(owner, repo)))

    def get_permission(self, req: Req, owner: str, repo: str, login: str) -> Reply:
        r = self.repo(owner, repo)
        role = self.s.role(r, login)
        permission = ROLE_TO_PERMISSION[role]
        user = self.s.user_json(login)
        user["permissions"] = {
            "admin": role == "admin",
            "maintain": ROLE_RANK[role] >= ROLE_RANK["maintain"],
            "push": ROLE_RANK[role] >= ROLE_RANK["write"],
            "triage": ROLE_RANK[role] >= ROLE_RANK["triage"],
            "pull": ROLE_RANK[role] >= ROLE_RANK["read"],
        }
        user["role_name"] = role
        return Reply(200, {"permission": permission, "role_name": role, "user": user})

    def check_collaborator(self, req: Req, owner: str, repo: str, login: str) -> Reply:
        r = self.repo(owner, repo)
        if any(name.lower() == login.lower() for name in r.collaborators):
            return Reply(204)
        raise not_found()

    # -- pulls -----------------------------------------------------------------------------

    def list_pulls(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        state = req.query.get("state", "open")
        head = req.query.get("head")
        base = req.query.get("base")
        out = []
        for issue in r.issues.values():
            if issue.pr is None or (state != "all" and issue.state != state):
                continue
            if base and issue.pr.base_ref != base:
                continue
            # GitHub silently ignores a head filter that lacks the "owner:" prefix.
            if head and ":" in head:
                head_owner, _, head_ref = head.partition(":")
                if issue.pr.head_full_name.split("/")[0].lower() != head_owner.lower():
                    continue
                if head_ref and issue.pr.head_ref != head_ref:
                    continue
            out.append(issue)
        sort = req.query.get("sort") or "created"
        descending = req.query.get("direction", "desc" if sort == "created" else "asc") == "desc"
        if sort == "updated":
            out.sort(key=lambda i: (i.updated_at, i.number), reverse=descending)
        else:
            out.sort(key=lambda i: (i.created_at, i.number), reverse=descending)
        return self.paginate(req, [self.s.pull_json(r, i, full=False) for i in out])

    def get_pull(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        return Reply(200, self.s.pull_json(r, self.pull(r, number)))

    def resolve_head(self, r: Repo, head: str) -> tuple[Repo | None, str]:
        owner, sep, ref = head.partition(":")
        if not sep:
            return r, head
        if owner.lower() == r.owner.lower():
            return r, ref
        for candidate in self.s.repos.values():
            if candidate.owner.lower() != owner.lower():
                continue
            if candidate.name.lower() == r.name.lower() or (
                candidate.parent and candidate.parent.lower() == r.full_name.lower()
            ):
                return candidate, ref
        return None, ref

    def open_duplicate(self, r: Repo, head_full_name: str, head_ref: str, base_ref: str) -> Issue | None:
        for issue in r.issues.values():
            pr = issue.pr
            if (
                pr is not None
                and issue.state == "open"
                and pr.head_full_name.lower() == head_full_name.lower()
                and pr.head_ref == head_ref
                and pr.base_ref == base_ref
            ):
                return issue
        return None

    def create_pull(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        data = req.obj()
        doc = f"{DOCS}/pulls/pulls#create-a-pull-request"
        head = self.body_string(data, "head", "PullRequest", required=True)
        base = self.body_string(data, "base", "PullRequest", required=True)
        title = self.body_string(data, "title", "PullRequest", required="issue" not in data)
        assert head is not None and base is not None
        head_repo, head_ref = self.resolve_head(r, head)
        head_sha = self.s.branch_sha(head_repo, head_ref)
        if head_repo is None or head_sha is None:
            raise validation_failed({"resource": "PullRequest", "field": "head", "code": "invalid"}, doc=doc)
        base_sha = self.s.branch_sha(r, base)
        if base_sha is None:
            raise validation_failed({"resource": "PullRequest", "field": "base", "code": "invalid"}, doc=doc)
        if self.open_duplicate(r, head_repo.full_name, head_ref, base):
            raise validation_failed(
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": f"A pull request already exists for {head_repo.owner}:{head_ref}.",
                },
                doc=doc,
            )
        if head_repo is r:
            done = self.s.git(r, "merge-base", "--is-ancestor", head_sha, base_sha)
            if done.returncode == 0:
                raise validation_failed(
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": f"No commits between {base} and {head_ref}",
                    },
                    doc=doc,
                )
        issue = self.s.add_pull(
            r,
            {
                "title": title or "",
                "body": data.get("body"),
                "user": self.s.bot_login,
                "head_ref": head_ref,
                "head_full_name": head_repo.full_name,
                "base_ref": base,
                "draft": bool(data.get("draft", False)),
                "maintainer_can_modify": bool(data.get("maintainer_can_modify", False)),
            },
        )
        payload = self.s.pull_json(r, issue)
        return Reply(201, payload, {"Location": payload["url"]})

    def update_pull(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.pull(r, number)
        pr = issue.pr
        assert pr is not None
        data = req.obj()
        doc = f"{DOCS}/pulls/pulls#update-a-pull-request"
        if "base" in data and self.s.branch_sha(r, data["base"]) is None:
            raise validation_failed({"resource": "PullRequest", "field": "base", "code": "invalid"}, doc=doc)
        if data.get("state") not in (None, "open", "closed"):
            raise validation_failed({"resource": "PullRequest", "field": "state", "code": "invalid"}, doc=doc)
        if data.get("state") == "open" and issue.state == "closed":
            other = self.open_duplicate(r, pr.head_full_name, pr.head_ref, data.get("base", pr.base_ref))
            if other is not None:
                raise validation_failed(
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": f"A pull request already exists for "
                        f"{pr.head_full_name.split('/')[0]}:{pr.head_ref}.",
                    },
                    doc=doc,
                )
        self.apply_issue_edits(r, issue, data)
        if "base" in data:
            pr.base_ref = data["base"]
        if "maintainer_can_modify" in data:
            pr.maintainer_can_modify = bool(data["maintainer_can_modify"])
        return Reply(200, self.s.pull_json(r, issue))

    def apply_issue_edits(self, r: Repo, issue: Issue, data: dict[str, Any]) -> None:
        if "title" in data and data["title"] is not None:
            issue.title = data["title"]
        if "body" in data:
            issue.body = data["body"]
        state = data.get("state")
        if state in ("open", "closed") and state != issue.state:
            issue.state = state
            issue.closed_at = now_iso() if state == "closed" else None
            default_reason = "completed" if state == "closed" else "reopened"
            issue.state_reason = data.get("state_reason") or default_reason
            if state == "open" and issue.pr is not None:
                self.s.pr_head_sha(r, issue)
        if "labels" in data and data["labels"] is not None:
            issue.labels = []
            for label in data["labels"]:
                name = label if isinstance(label, str) else label["name"]
                issue.labels.append(self.s.ensure_label(r, name).name)
        issue.updated_at = now_iso()

    def get_reviewers(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.pull(r, number)
        assert issue.pr is not None
        return Reply(200, {"users": [self.s.user_json(u) for u in issue.pr.requested_reviewers], "teams": []})

    def request_reviewers(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.pull(r, number)
        pr = issue.pr
        assert pr is not None
        data = req.obj()
        doc = f"{DOCS}/pulls/review-requests#request-reviewers-for-a-pull-request"
        reviewers = data.get("reviewers") or []
        if not isinstance(reviewers, list) or not (reviewers or data.get("team_reviewers")):
            raise validation_failed(
                {"resource": "PullRequest", "field": "reviewers", "code": "missing_field"}, doc=doc
            )
        for login in reviewers:
            if login.lower() == issue.user.lower():
                raise ApiError(422, "Review cannot be requested from pull request author.", doc=doc)
        for login in reviewers:
            if not any(name.lower() == login.lower() for name in r.collaborators):
                raise ApiError(
                    422,
                    "Reviews may only be requested from collaborators. One or more of the users or teams "
                    f"you specified is not a collaborator of the {r.full_name} repository.",
                    doc=doc,
                )
        for login in reviewers:
            if all(existing.lower() != login.lower() for existing in pr.requested_reviewers):
                pr.requested_reviewers.append(login)
        issue.updated_at = now_iso()
        return Reply(201, self.s.pull_json(r, issue, full=False))

    def remove_reviewers(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.pull(r, number)
        pr = issue.pr
        assert pr is not None
        drop = {login.lower() for login in req.obj().get("reviewers") or []}
        pr.requested_reviewers = [u for u in pr.requested_reviewers if u.lower() not in drop]
        return Reply(200, self.s.pull_json(r, issue, full=False))

    def list_pull_commits(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.pull(r, number)
        infos = [self.s.commit_info(r, sha) for sha in self.s.pull_commit_shas(r, issue)]
        return self.paginate(req, [self.s.commit_json(r, info) for info in infos if info is not None])

    def list_pull_files(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        return self.paginate(req, self.s.pull_files(r, self.pull(r, number)))

    # -- issues ----------------------------------------------------------------------------

    def list_issues(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        state = req.query.get("state", "open")
        wanted = {n.strip().lower() for n in req.query.get("labels", "").split(",") if n.strip()}
        out = [
            i
            for i in r.issues.values()
            if (state == "all" or i.state == state) and wanted <= {n.lower() for n in i.labels}
        ]
        out.sort(key=lambda i: (i.created_at, i.number), reverse=req.query.get("direction", "desc") == "desc")
        return self.paginate(req, [self.s.issue_json(r, i) for i in out])

    def create_issue(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        data = req.obj()
        title = self.body_string(data, "title", "Issue", required=True)
        issue = self.s.add_issue(
            r,
            {
                "title": title,
                "body": data.get("body"),
                "user": self.s.bot_login,
                "labels": data.get("labels", []),
            },
        )
        payload = self.s.issue_json(r, issue)
        return Reply(201, payload, {"Location": payload["url"]})

    def get_issue(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        return Reply(200, self.s.issue_json(r, self.issue(r, number)))

    def update_issue(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.issue(r, number)
        self.apply_issue_edits(r, issue, req.obj())
        return Reply(200, self.s.issue_json(r, issue))

    # -- comments --------------------------------------------------------------------------

    def list_comments(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        self.issue(r, number)
        since = req.query.get("since")
        out = [
            c
            for c in sorted(r.comments.values(), key=lambda c: c.id)
            if c.issue_number == int(number) and (not since or c.updated_at >= since)
        ]
        return self.paginate(req, [self.s.comment_json(r, c) for c in out])

    def list_repo_comments(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        out = sorted(r.comments.values(), key=lambda c: c.id)
        return self.paginate(req, [self.s.comment_json(r, c) for c in out])

    def create_comment(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.issue(r, number)
        body = self.body_string(req.obj(), "body", "IssueComment", required=True)
        assert body is not None
        comment = self.s.add_comment(r, issue.number, self.s.bot_login, body)
        issue.updated_at = comment.created_at
        payload = self.s.comment_json(r, comment)
        return Reply(201, payload, {"Location": payload["url"]})

    def get_comment(self, req: Req, owner: str, repo: str, cid: str) -> Reply:
        r = self.repo(owner, repo)
        return Reply(200, self.s.comment_json(r, self.comment(r, cid)))

    def update_comment(self, req: Req, owner: str, repo: str, cid: str) -> Reply:
        r = self.repo(owner, repo)
        comment = self.comment(r, cid)
        body = self.body_string(req.obj(), "body", "IssueComment", required=True)
        assert body is not None
        comment.body = body
        comment.edits += 1
        comment.updated_at = now_iso()
        return Reply(200, self.s.comment_json(r, comment))

    def delete_comment(self, req: Req, owner: str, repo: str, cid: str) -> Reply:
        r = self.repo(owner, repo)
        comment = self.comment(r, cid)
        del r.comments[comment.id]
        r.deleted_comments.append(
            {
                "id": comment.id,
                "issue_number": comment.issue_number,
                "user": comment.user,
                "body": comment.body,
            }
        )
        return Reply(204)

    # -- reactions -------------------------------------------------------------------------

    def react(self, reactions: list[Reaction], req: Req) -> Reply:
        content = req.obj().get("content")
        if content not in REACTIONS:
            raise validation_failed(
                {"resource": "Reaction", "code": "invalid", "field": "content"},
                doc=f"{DOCS}/reactions/reactions",
            )
        reaction, created = self.s.add_reaction(reactions, self.s.bot_login, content)
        return Reply(201 if created else 200, self.s.reaction_json(reaction))

    def list_reactions(self, reactions: list[Reaction], req: Req) -> Reply:
        content = req.query.get("content")
        chosen = [r for r in reactions if not content or r.content == content]
        return self.paginate(req, [self.s.reaction_json(r) for r in chosen])

    @staticmethod
    def unreact(reactions: list[Reaction], rid: str) -> Reply:
        for reaction in reactions:
            if reaction.id == int(rid):
                reactions.remove(reaction)
                return Reply(204)
        raise not_found()

    def list_comment_reactions(self, req: Req, owner: str, repo: str, cid: str) -> Reply:
        return self.list_reactions(self.comment(self.repo(owner, repo), cid).reactions, req)

    def create_comment_reaction(self, req: Req, owner: str, repo: str, cid: str) -> Reply:
        return self.react(self.comment(self.repo(owner, repo), cid).reactions, req)

    def delete_comment_reaction(self, req: Req, owner: str, repo: str, cid: str, rid: str) -> Reply:
        return self.unreact(self.comment(self.repo(owner, repo), cid).reactions, rid)

    def list_issue_reactions(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        return self.list_reactions(self.issue(self.repo(owner, repo), number).reactions, req)

    def create_issue_reaction(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        return self.react(self.issue(self.repo(owner, repo), number).reactions, req)

    def delete_issue_reaction(self, req: Req, owner: str, repo: str, number: str, rid: str) -> Reply:
        return self.unreact(self.issue(self.repo(owner, repo), number).reactions, rid)

    # -- labels ----------------------------------------------------------------------------

    def label_names(self, data: Any) -> list[str]:
        items = data.get("labels", []) if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise validation_failed({"resource": "Label", "code": "invalid", "field": "labels"})
        return [item if isinstance(item, str) else item["name"] for item in items]

    def issue_labels_reply(self, r: Repo, issue: Issue) -> Reply:
        return Reply(200, [self.s.label_json(r, name) for name in issue.labels])

    def list_issue_labels(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.issue(r, number)
        return self.paginate(req, [self.s.label_json(r, name) for name in issue.labels])

    def add_issue_labels(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.issue(r, number)
        for name in self.label_names(req.json()):
            label = self.s.ensure_label(r, name)
            if all(existing.lower() != label.name.lower() for existing in issue.labels):
                issue.labels.append(label.name)
        issue.updated_at = now_iso()
        return self.issue_labels_reply(r, issue)

    def set_issue_labels(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.issue(r, number)
        issue.labels = []
        return self.add_issue_labels(req, owner, repo, number)

    def clear_issue_labels(self, req: Req, owner: str, repo: str, number: str) -> Reply:
        r = self.repo(owner, repo)
        self.issue(r, number).labels = []
        return Reply(204)

    def remove_issue_label(self, req: Req, owner: str, repo: str, number: str, name: str) -> Reply:
        r = self.repo(owner, repo)
        issue = self.issue(r, number)
        for existing in issue.labels:
            if existing.lower() == name.lower():
                issue.labels.remove(existing)
                return self.issue_labels_reply(r, issue)
        raise ApiError(404, "Label does not exist", doc=f"{DOCS}/issues/labels")

    def list_labels(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        return self.paginate(req, [self.s.label_json(r, label.name) for label in r.labels.values()])

    def create_label(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        data = req.obj()
        name = self.body_string(data, "name", "Label", required=True)
        assert name is not None
        if name.lower() in r.labels:
            raise validation_failed({"resource": "Label", "code": "already_exists", "field": "name"})
        self.s.ensure_label(r, name, data)
        return Reply(201, self.s.label_json(r, name))

    def get_label(self, req: Req, owner: str, repo: str, name: str) -> Reply:
        r = self.repo(owner, repo)
        if name.lower() not in r.labels:
            raise not_found()
        return Reply(200, self.s.label_json(r, name))

    # -- commits / branches / refs ---------------------------------------------------------

    def get_commit(self, req: Req, owner: str, repo: str, sha: str) -> Reply:
        r = self.repo(owner, repo)
        info = self.s.commit_info(r, sha) if r.git_dir else None
        if info is None:
            raise ApiError(422, f"No commit found for SHA: {sha}", doc=f"{DOCS}/commits/commits#get-a-commit")
        return Reply(200, self.s.commit_json(r, info))

    def commit_pulls(self, req: Req, owner: str, repo: str, sha: str) -> Reply:
        r = self.repo(owner, repo)
        wanted = sha if re.fullmatch(r"[0-9a-f]{40}", sha) else (self.s.rev(r, sha) or sha)
        out = [
            issue
            for issue in sorted(r.issues.values(), key=lambda i: i.number, reverse=True)
            if issue.pr is not None and self.s.pr_head_sha(r, issue) == wanted
        ]
        return self.paginate(req, [self.s.pull_json(r, i, full=False) for i in out])

    def list_branches(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        api = self.s.repo_api(r)
        items = [
            {"name": name, "commit": {"sha": sha, "url": f"{api}/commits/{sha}"}, "protected": False}
            for name, sha in sorted(self.s.branches(r).items())
        ]
        return self.paginate(req, items)

    def get_branch(self, req: Req, owner: str, repo: str, branch: str) -> Reply:
        r = self.repo(owner, repo)
        sha = self.s.branch_sha(r, branch)
        info = self.s.commit_info(r, sha) if sha else None
        if info is None:
            raise ApiError(404, "Branch not found", doc=f"{DOCS}/branches/branches#get-a-branch")
        api = self.s.repo_api(r)
        return Reply(
            200,
            {
                "name": branch,
                "commit": self.s.commit_json(r, info),
                "_links": {
                    "self": f"{api}/branches/{quote(branch)}",
                    "html": f"{self.s.url}/{r.full_name}/tree/{quote(branch)}",
                },
                "protected": False,
                "protection": {
                    "enabled": False,
                    "required_status_checks": {"enforcement_level": "off", "contexts": [], "checks": []},
                },
                "protection_url": f"{api}/branches/{quote(branch)}/protection",
            },
        )

    # -- the Git database: blobs, trees, commits (git plumbing on the repository's bare git dir) --

    def git_repo(self, owner: str, repo: str) -> Repo:
        r = self.repo(owner, repo)
        if r.git_dir is None:
            raise ApiError(409, "Git Repository is empty.", doc=f"{DOCS}/git")
        return r

    def create_blob(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.git_repo(owner, repo)
        data = req.obj()
        content = self.body_string(data, "content", "Blob", required=True)
        encoding = data.get("encoding", "utf-8")
        assert content is not None
        if encoding == "base64":
            try:
                raw = base64.b64decode(content, validate=False)
            except (binascii.Error, ValueError) as exc:
                raise validation_failed({"resource": "Blob", "code": "invalid", "field": "content"}) from exc
        elif encoding in ("utf-8", "utf8"):
            raw = content.encode("utf-8")
        else:
            raise validation_failed({"resource": "Blob", "code": "invalid", "field": "encoding"})
        sha = (
            self.s.git_in(r, "hash-object", "-w", "--no-filters", "--stdin", input=raw)
            .stdout.decode()
            .strip()
        )
        url = f"{self.s.repo_api(r)}/git/blobs/{sha}"
        return Reply(201, {"url": url, "sha": sha}, {"Location": url})

    def get_blob(self, req: Req, owner: str, repo: str, sha: str) -> Reply:
        r = self.git_repo(owner, repo)
        if self.s.object_type(r, sha) != "blob":
            raise not_found(f"{DOCS}/git/blobs#get-a-blob")
        raw = self.s.git_in(r, "cat-file", "blob", sha, input=b"").stdout
        encoded = base64.encodebytes(raw).decode()  # GitHub wraps base64 content at 60 columns too
        return Reply(200, {
            "sha": sha, "node_id": node_id("B", int(sha[:8], 16)), "size": len(raw),
            "url": f"{self.s.repo_api(r)}/git/blobs/{sha}", "content": encoded, "encoding": "base64",
        })  # fmt: skip

    def get_tree(self, req: Req, owner: str, repo: str, sha: str) -> Reply:
        r = self.git_repo(owner, repo)
        full = self.s.rev(r, sha) if self.s.object_type(r, sha) in ("commit", None) else sha
        tree = (
            self.s.git(r, "rev-parse", "--verify", "--quiet", f"{full}^{{tree}}").stdout.strip()
            if full
            else ""
        )
        if not tree:
            raise not_found(f"{DOCS}/git/trees#get-a-tree")
        recursive = req.query.get("recursive") not in (None, "", "0", "false")
        return Reply(200, self.s.tree_json(r, tree, recursive=recursive))

    def create_tree(self, req: Req, owner: str, repo: str) -> Reply:
        """Blob entries (by sha or content) and deletions (sha null) over `base_tree`, as GitHub does;
        entries of type tree or commit are not supported by this fake."""
        r = self.git_repo(owner, repo)
        data = req.obj()
        entries = data.get("tree")
        if not isinstance(entries, list):
            raise validation_failed({"resource": "Tree", "code": "missing_field", "field": "tree"})
        base_tree = data.get("base_tree")
        if base_tree is not None and self.s.object_type(r, str(base_tree)) != "tree":
            raise ApiError(422, "base_tree is not a valid tree oid", doc=f"{DOCS}/git/trees#create-a-tree")
        with tempfile.TemporaryDirectory() as scratch:
            index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
            if base_tree is None:
                self.s.git_in(r, "read-tree", "--empty", input=b"", env=index)
            else:
                self.s.git_in(r, "read-tree", str(base_tree), input=b"", env=index)
            for entry in entries:
                if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"]:
                    raise validation_failed({"resource": "Tree", "code": "invalid", "field": "tree.path"})
                path, mode, kind = entry["path"], entry.get("mode"), entry.get("type", "blob")
                if mode not in ("100644", "100755", "040000", "160000", "120000"):
                    raise ApiError(422, f"tree.mode {mode} is not a valid mode", doc=f"{DOCS}/git/trees")
                if kind != "blob":
                    raise ApiError(422, f"the fake GitHub creates blob entries only, not {kind}")
                if "content" in entry and entry.get("sha") is None and entry["content"] is not None:
                    blob = (
                        self.s.git_in(
                            r,
                            "hash-object",
                            "-w",
                            "--no-filters",
                            "--stdin",
                            input=str(entry["content"]).encode("utf-8"),
                        )
                        .stdout.decode()
                        .strip()
                    )
                elif entry.get("sha") is None:  # null sha: delete the path (mode 0 in --index-info)
                    listed = self.s.git_in(r, "ls-files", "-z", "--", path, input=b"", env=index).stdout
                    if not listed:
                        raise ApiError(422, f"tree.path {path} does not exist", doc=f"{DOCS}/git/trees")
                    self.s.git_in(r, "update-index", "-z", "--index-info",
                                  input=f"0 {'0' * 40}\t{path}\0".encode(), env=index)  # fmt: skip
                    continue
                else:
                    blob = str(entry["sha"])
                    if self.s.object_type(r, blob) != "blob":
                        raise ApiError(422, f"tree.sha {blob} is not a valid blob", doc=f"{DOCS}/git/trees")
                added = self.s.git_in(r, "update-index", "--add", "--replace", "-z", "--index-info",
                                      input=f"{mode} {blob}\t{path}\0".encode(), env=index)  # fmt: skip
                if added.returncode != 0:
                    raise ApiError(422, f"tree.path {path} is invalid", doc=f"{DOCS}/git/trees")
            sha = self.s.git_in(r, "write-tree", input=b"", env=index).stdout.decode().strip()
        payload = self.s.tree_json(r, sha)
        return Reply(201, payload, {"Location": payload["url"]})

    def person(self, data: Any, field_name: str) -> dict[str, str] | None:
        if data is None:
            return None
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("name"), str)
            or not isinstance(data.get("email"), str)
        ):
            raise validation_failed({"resource": "Commit", "code": "invalid", "field": field_name})
        return {"name": data["name"], "email": data["email"], "date": str(data.get("date") or now_iso())}

    def create_git_commit(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.git_repo(owner, repo)
        data = req.obj()
        message = self.body_string(data, "message", "Commit", required=True)
        tree = self.body_string(data, "tree", "Commit", required=True)
        assert message is not None and tree is not None
        if self.s.object_type(r, tree) != "tree":
            raise ApiError(422, "Tree SHA does not exist", doc=f"{DOCS}/git/commits#create-a-commit")
        parents = data.get("parents", [])
        if not isinstance(parents, list) or any(self.s.object_type(r, str(p)) != "commit" for p in parents):
            raise ApiError(422, "Parent SHA does not exist or is not a commit object",
                           doc=f"{DOCS}/git/commits#create-a-commit")  # fmt: skip
        # by default the author is the token's user, and the committer the author
        login = self.s.bot_login
        default = {"name": login, "email": f"{self.s.user_id(login)}+{login}@users.noreply.github.com",
                   "date": now_iso()}  # fmt: skip
        author = self.person(data.get("author"), "author") or default
        committer = self.person(data.get("committer"), "committer") or author
        env = {
            "GIT_AUTHOR_NAME": author["name"], "GIT_AUTHOR_EMAIL": author["email"],
            "GIT_AUTHOR_DATE": author["date"], "GIT_COMMITTER_NAME": committer["name"],
            "GIT_COMMITTER_EMAIL": committer["email"], "GIT_COMMITTER_DATE": committer["date"],
        }  # fmt: skip
        args = ["commit-tree", tree, *[a for p in parents for a in ("-p", str(p))]]
        made = self.s.git_in(r, *args, input=message.encode("utf-8"), env=env)
        if made.returncode != 0:
            raise ApiError(422, made.stderr.decode(errors="replace").strip() or "commit failed")
        info = self.s.commit_info(r, made.stdout.decode().strip())
        assert info is not None
        info["message"] = message  # verbatim, as GitHub stores it
        payload = self.s.git_commit_json(r, info)
        return Reply(201, payload, {"Location": payload["url"]})

    def get_git_commit(self, req: Req, owner: str, repo: str, sha: str) -> Reply:
        r = self.git_repo(owner, repo)
        info = self.s.commit_info(r, sha) if self.s.object_type(r, sha) == "commit" else None
        if info is None:
            raise not_found(f"{DOCS}/git/commits#get-a-commit-object")
        return Reply(200, self.s.git_commit_json(r, info))

    @staticmethod
    def full_ref(ref: str) -> str:
        return ref if ref.startswith("refs/") else f"refs/{ref}"

    def get_ref(self, req: Req, owner: str, repo: str, ref: str) -> Reply:
        r = self.repo(owner, repo)
        full = self.full_ref(ref)
        found = self.s.refs(r, full.removeprefix("refs/")).get(full)
        if found is None:
            raise not_found(f"{DOCS}/git/refs#get-a-reference")
        return Reply(200, self.s.ref_json(r, full, *found))

    def list_refs(self, req: Req, owner: str, repo: str) -> Reply:
        return self.matching_refs(req, owner, repo, "")

    def get_refs_legacy(self, req: Req, owner: str, repo: str, ref: str) -> Reply:
        r = self.repo(owner, repo)
        full = self.full_ref(ref)
        refs = self.s.refs(r, full.removeprefix("refs/"))
        if full in refs:
            return Reply(200, self.s.ref_json(r, full, *refs[full]))
        if refs:
            return Reply(200, [self.s.ref_json(r, name, *value) for name, value in sorted(refs.items())])
        raise not_found(f"{DOCS}/git/refs#get-a-reference")

    def matching_refs(self, req: Req, owner: str, repo: str, ref: str) -> Reply:
        r = self.repo(owner, repo)
        refs = self.s.refs(r, ref.removeprefix("refs/"))
        return self.paginate(req, [self.s.ref_json(r, name, *value) for name, value in sorted(refs.items())])

    def create_ref(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        data = req.obj()
        ref = self.body_string(data, "ref", "Reference", required=True)
        sha = self.body_string(data, "sha", "Reference", required=True)
        assert ref is not None and sha is not None
        if not ref.startswith("refs/") or ref.count("/") < 2:
            raise ApiError(422, "Reference name must start with 'refs/' and have at least two slashes.")
        if self.s.rev(r, ref):
            raise ApiError(422, "Reference already exists", doc=f"{DOCS}/git/refs#create-a-reference")
        if r.git_dir is None or self.s.git(r, "update-ref", ref, sha, "").returncode != 0:
            raise ApiError(422, "Object does not exist", doc=f"{DOCS}/git/refs#create-a-reference")
        payload = self.s.ref_json(r, ref, sha)
        return Reply(201, payload, {"Location": payload["url"]})

    def update_ref(self, req: Req, owner: str, repo: str, ref: str) -> Reply:
        r = self.repo(owner, repo)
        full = self.full_ref(ref)
        data = req.obj()
        sha = self.body_string(data, "sha", "Reference", required=True)
        assert sha is not None
        old = self.s.rev(r, full)
        if old is None:
            raise ApiError(422, "Reference does not exist", doc=f"{DOCS}/git/refs#update-a-reference")
        if not data.get("force") and self.s.git(r, "merge-base", "--is-ancestor", old, sha).returncode != 0:
            raise ApiError(422, "Update is not a fast forward", doc=f"{DOCS}/git/refs#update-a-reference")
        if self.s.git(r, "update-ref", full, sha, old).returncode != 0:
            raise ApiError(422, "Object does not exist", doc=f"{DOCS}/git/refs#update-a-reference")
        return Reply(200, self.s.ref_json(r, full, sha))

    def delete_ref(self, req: Req, owner: str, repo: str, ref: str) -> Reply:
        r = self.repo(owner, repo)
        full = self.full_ref(ref)
        if r.git_dir is None or self.s.rev(r, full) is None:
            raise ApiError(422, "Reference does not exist", doc=f"{DOCS}/git/refs#delete-a-reference")
        old = self.s.rev(r, full)
        self.s.git(r, "update-ref", "-d", full, check=True)
        if full.startswith("refs/heads/"):
            self.close_pulls_of(r, full.removeprefix("refs/heads/"), old)
        return Reply(204)

    def close_pulls_of(self, r: Repo, branch: str, last_head: str | None) -> None:
        """As GitHub does: deleting a branch closes the open pull requests whose head it was."""
        for repo in self.s.repos.values():
            for issue in repo.issues.values():
                pr = issue.pr
                if (issue.state != "open" or pr is None or pr.head_ref != branch
                        or pr.head_full_name.lower() != r.full_name.lower()):  # fmt: skip
                    continue
                pr.head_sha = last_head or pr.head_sha
                issue.state, issue.closed_at, issue.state_reason = "closed", now_iso(), None
                issue.updated_at = now_iso()

    # -- the GitHub App ----------------------------------------------------------------------

    def installation(self, iid: str) -> Installation:
        found = self.s.installations.get(int(iid))
        if found is None:
            raise not_found(f"{DOCS}/apps/apps#get-an-installation-for-the-authenticated-app")
        return found

    def get_app(self, req: Req) -> Reply:
        return Reply(200, self.s.app_json())

    def list_installations(self, req: Req) -> Reply:
        return self.paginate(req, [self.s.installation_json(i) for i in self.s.installations.values()])

    def get_installation(self, req: Req, iid: str) -> Reply:
        return Reply(200, self.s.installation_json(self.installation(iid)))

    def get_repo_installation(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        found = self.s.installation_for(r.full_name)
        if found is None:
            raise not_found(f"{DOCS}/apps/apps#get-a-repository-installation-for-the-authenticated-app")
        return Reply(200, self.s.installation_json(found))

    def create_access_token(self, req: Req, iid: str) -> Reply:
        installation = self.installation(iid)
        data = req.obj()
        repositories: list[str] | None = None
        if data.get("repositories"):
            names = data["repositories"]
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise validation_failed(
                    {"resource": "Installation", "field": "repositories", "code": "invalid"}
                )
            repositories = [n if "/" in n else f"{installation.account}/{n}" for n in names]
            if not all(installation.covers(name) for name in repositories):
                raise ApiError(
                    422,
                    "There is at least one repository that does not exist or is not accessible to the "
                    "parent installation.",
                )
        permissions = dict(installation.permissions)
        wanted = data.get("permissions") or {}
        rank = {"read": 1, "write": 2, "admin": 3}
        for name, level in wanted.items():
            if rank.get(level, 0) > rank.get(permissions.get(name, ""), 0):
                raise ApiError(422, f"The permissions requested are not granted to this installation: {name}")
        if wanted:
            permissions = {k: v for k, v in wanted.items()}
        token = self.s.issue_token(installation, repositories, permissions)
        body: dict[str, Any] = {
            "token": token.token,
            "expires_at": datetime.fromtimestamp(token.expires_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "permissions": permissions,
            "repository_selection": "all"
            if installation.repositories is None and repositories is None
            else "selected",
        }
        if repositories is not None:
            body["repositories"] = [
                self.s.repo_json(self.s.repos[name.lower()], with_parent=False)
                for name in repositories
                if name.lower() in self.s.repos
            ]
        return Reply(201, body)

    # -- Actions workflows -----------------------------------------------------------------

    def workflow(self, r: Repo, wid: str) -> Workflow:
        for workflow in r.workflows.values():
            if wid == str(workflow.id) or wid in (workflow.path, Path(workflow.path).name):
                return workflow
        raise not_found(f"{DOCS}/actions/workflows#get-a-workflow")

    def list_workflows(self, req: Req, owner: str, repo: str) -> Reply:
        r = self.repo(owner, repo)
        items = [self.s.workflow_json(r, w) for w in r.workflows.values()]
        return Reply(200, {"total_count": len(items), "workflows": items})

    def get_workflow(self, req: Req, owner: str, repo: str, wid: str) -> Reply:
        r = self.repo(owner, repo)
        return Reply(200, self.s.workflow_json(r, self.workflow(r, wid)))

    def dispatch_workflow(self, req: Req, owner: str, repo: str, wid: str) -> Reply:
        r = self.repo(owner, repo)
        workflow = self.workflow(r, wid)
        doc = f"{DOCS}/actions/workflows#create-a-workflow-dispatch-event"
        principal = req.principal
        issued = principal.issued if principal is not None else None
        if issued is not None and issued.permissions.get("actions") not in ("write", "admin"):
            raise ApiError(403, "Resource not accessible by integration", doc=doc)
        data = req.obj()
        ref = data.get("ref")
        if not isinstance(ref, str) or not ref:
            raise ApiError(422, 'Invalid request.\n\n"ref" wasn\'t supplied.', doc=doc)
        short = ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
        if self.s.rev(r, f"refs/heads/{short}") is None and self.s.rev(r, f"refs/tags/{short}") is None:
            raise ApiError(422, f"No ref found for: {ref}", doc=doc)
        if not workflow.dispatchable:
            raise ApiError(422, "Workflow does not have 'workflow_dispatch' trigger", doc=doc)
        inputs = data.get("inputs") or {}
        if not isinstance(inputs, dict):
            raise ApiError(422, "Invalid request.\n\nFor 'properties/inputs', it is not an object.", doc=doc)
        if workflow.inputs is not None:
            unexpected = sorted(set(inputs) - set(workflow.inputs))
            if unexpected:
                raise ApiError(422, f"Unexpected inputs provided: {json.dumps(unexpected)}", doc=doc)
        run_id = 30000000 + len(r.dispatches) + 1
        r.dispatches.append(
            {
                "workflow_id": workflow.id,
                "workflow_path": workflow.path,
                "ref": ref,
                "inputs": dict(inputs),
                "principal": principal.describe() if principal else None,
                "workflow_run_id": run_id,
                "created_at": now_iso(),
            }
        )
        if data.get("return_run_details") is True:
            api = self.s.repo_api(r)
            return Reply(
                200,
                {
                    "workflow_run_id": run_id,
                    "run_url": f"{api}/actions/runs/{run_id}",
                    "html_url": f"{self.s.url}/{r.full_name}/actions/runs/{run_id}",
                },
            )
        return Reply(204)


# ---------------------------------------------------------------------------------------- server


class FakeGitHubServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, port: int, store: Store, *, verbose: bool = False) -> None:
        super().__init__(("127.0.0.1", port), RequestHandler)
        self.store = store
        self.api = Api(store)
        self.verbose = verbose
        store.url = f"http://127.0.0.1:{self.server_address[1]}"
        store.api_url = store.url + API_PREFIX


class RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeGitHubServer

    def version_string(self) -> str:
        return "GitHub.com"

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            sys.stderr.write(f"fake-github: {format % args}\n")

    # -- plumbing --------------------------------------------------------------------------

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                line = self.rfile.readline(65537)
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if status != 204 and status >= 200:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD" and status != 204:
            self.wfile.write(body)

    def rate_headers(self, *, remaining: int | None = None, reset: int | None = None) -> dict[str, str]:
        store = self.server.store
        left = RATE_LIMIT - store.rate_used if remaining is None else remaining
        return {
            "X-RateLimit-Limit": str(RATE_LIMIT),
            "X-RateLimit-Remaining": str(max(0, left)),
            "X-RateLimit-Reset": str(store.rate_reset if reset is None else reset),
            "X-RateLimit-Used": str(RATE_LIMIT - max(0, left)),
            "X-RateLimit-Resource": "core",
        }

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = b"" if status == 204 else json.dumps(payload).encode()
        out = {
            "Content-Type": "application/json; charset=utf-8",
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Api-Version-Selected": "2022-11-28",
            "X-GitHub-Request-Id": self.request_id,
            "Access-Control-Expose-Headers": "ETag, Link, Location, Retry-After, X-RateLimit-Limit, "
            "X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset",
            **self.rate_headers(),
            **(headers or {}),
        }
        if status == 204:
            out.pop("Content-Type")
        self.send(status, body, out)

    def record(self, kind: str, status: int, auth: str | None, injected: bool) -> None:
        store = self.server.store
        raw = self.path
        principal = getattr(self, "principal", None)
        tokens = [t for t in (store.token, *store.app_tokens) if t]
        store.requests.append(
            {
                "seq": store.next_id("request"),
                "time": time.time(),
                "kind": kind,
                "method": self.command,
                "path": raw,
                "status": status,
                "auth": auth,
                "token_in_url": any(t in raw or t in unquote(raw) for t in tokens),
                "injected": injected,
                "principal": principal.describe() if principal else None,
                "user_agent": self.headers.get("User-Agent"),
            }
        )

    # -- entry points ----------------------------------------------------------------------

    def do_GET(self) -> None:
        self.handle_any()

    def do_POST(self) -> None:
        self.handle_any()

    def do_PATCH(self) -> None:
        self.handle_any()

    def do_PUT(self) -> None:
        self.handle_any()

    def do_DELETE(self) -> None:
        self.handle_any()

    def handle_any(self) -> None:
        self.request_id = f"{secrets.token_hex(2).upper()}:{secrets.token_hex(3).upper()}:{os.getpid():X}"
        body = self.read_body()
        parts = urlsplit(self.path)
        try:
            if parts.path.startswith("/_fake/"):
                self.handle_admin(parts.path, body)
            elif parts.path == API_PREFIX or parts.path.startswith(API_PREFIX + "/"):
                self.handle_api(parts.path[len(API_PREFIX) :] or "/", parts.query, body)
            elif GIT_SERVICE.match(unquote(parts.path)):
                self.handle_git(unquote(parts.path), parts.query, body)
            else:
                self.send(404, b"Not Found\n", {"Content-Type": "text/plain; charset=utf-8"})
        except BrokenPipeError:
            pass

    # -- failure injection -----------------------------------------------------------------

    def take_rule(self) -> FailRule | None:
        store = self.server.store
        for rule in store.rules:
            if rule.times <= 0:
                continue
            if rule.method not in (None, "*") and rule.method.upper() != self.command:
                continue
            if rule.path_regex.search(self.path):
                if rule.skip > 0:
                    rule.skip -= 1
                    continue
                rule.times -= 1
                rule.hits += 1
                return rule
        return None

    def failure_payload(self, rule: FailRule) -> tuple[dict[str, Any], dict[str, str]]:
        headers: dict[str, str] = {}
        if rule.rate_limited and rule.rate_limit == "primary":
            message = rule.message or "API rate limit exceeded for installation ID 4242424."
            doc = f"{DOCS}/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"
            headers.update(self.rate_headers(remaining=0, reset=int(time.time()) + rule.reset_in))
        elif rule.rate_limited:
            message = rule.message or (
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
                "If you reach out to GitHub Support for help, please include the request ID "
                f"{self.request_id}."
            )
            doc = f"{DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
            if rule.retry_after is not None:
                headers["Retry-After"] = str(rule.retry_after)
        else:
            default = {
                401: "Bad credentials",
                403: "Resource not accessible by integration",
                404: "Not Found",
                422: "Validation Failed",
                502: "Server Error",
                503: "Service Unavailable",
            }
            message = rule.message or default.get(rule.status, "Server Error")
            doc = DOCS
        return {"message": message, "documentation_url": doc, "status": str(rule.status)}, headers

    # -- admin -----------------------------------------------------------------------------

    def handle_admin(self, path: str, body: bytes) -> None:
        store = self.server.store
        try:
            data = json.loads(body) if body.strip() else {}
        except ValueError:
            self.send_json(400, {"message": "Problems parsing JSON"})
            return
        with store.lock:
            try:
                if self.command == "GET" and path == "/_fake/state":
                    self.send_json(200, store.snapshot())
                elif self.command == "GET" and path == "/_fake/requests":
                    self.send_json(200, list(store.requests))
                elif self.command == "POST" and path == "/_fake/fail":
                    rule = FailRule(
                        id=store.next_id("rule"),
                        method=data.get("method"),
                        path_regex=re.compile(data.get("path_regex", ".*")),
                        status=int(data.get("status", 500)),
                        times=int(data.get("times", 1)),
                        rate_limited=bool(data.get("rate_limited", False)),
                        rate_limit=data.get("rate_limit", "secondary"),
                        retry_after=data.get("retry_after", 1),
                        reset_in=int(data.get("reset_in", 1)),
                        message=data.get("message"),
                        after=bool(data.get("after", False)),
                        skip=int(data.get("skip", 0)),
                        hang=float(data.get("hang", 0.0)),
                    )
                    store.rules.append(rule)
                    self.send_json(201, rule.describe())
                elif self.command == "POST" and path == "/_fake/fail/clear":
                    store.rules.clear()
                    self.send_json(200, {"ok": True})
                elif self.command == "POST" and path == "/_fake/seed":
                    self.send_json(201, store.seed(data))
                elif self.command == "POST" and path == "/_fake/reset-log":
                    store.requests.clear()
                    self.send_json(200, {"ok": True})
                else:
                    self.send_json(404, {"message": "Not Found"})
            except (KeyError, ValueError, TypeError, re.error) as exc:
                self.send_json(400, {"message": f"bad admin request: {exc!r}"})

    # -- REST API --------------------------------------------------------------------------

    def auth_ok(self) -> tuple[bool, str | None, str]:
        """(authorized, scheme, message) for the API: token/Bearer (the seed token, an app JWT or an
        installation token), or Basic with a token. Sets ``self.principal``."""
        self.principal: Principal | None = None
        header = self.headers.get("Authorization", "").strip()
        if not header:
            return False, None, "Requires authentication"
        scheme, _, value = header.partition(" ")
        scheme = scheme.lower()
        value = value.strip()
        store = self.server.store
        if scheme in ("token", "bearer"):
            self.principal, message = store.token_principal(value)
            return self.principal is not None, scheme, message
        if scheme == "basic":
            user, password = decode_basic(value)
            for candidate in (password, user):
                if candidate and candidate.count(".") != 2:
                    principal, _ = store.token_principal(candidate)
                    if principal is not None:
                        self.principal = principal
                        return True, scheme, ""
            return False, scheme, "Bad credentials"
        return False, scheme, "Bad credentials"

    def scope_error(self, path: str) -> ApiError | None:
        """What GitHub answers when the principal may not call ``path`` at all (None: it may)."""
        principal = self.principal
        store = self.server.store
        if principal is None or principal.kind == "token":
            return None
        app_route = path == "/app" or path.startswith("/app/")
        repo_match = re.match(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)(?P<rest>/.*)?$", unquote(path))
        if principal.kind == "app":
            if app_route or (repo_match and repo_match["rest"] in ("/installation", "/installation/")):
                return None
            return ApiError(
                403, "Resource not accessible by integration: a JWT authenticates as the app only"
            )
        if app_route:
            return ApiError(401, "A JSON web token could not be decoded")
        if repo_match:
            full_name = f"{repo_match['owner']}/{repo_match['repo']}"
            installation = store.installations.get(principal.installation_id or -1)
            issued = principal.issued
            if installation is None or issued is None or not issued.covers(installation, full_name):
                return not_found(f"{DOCS}/repos/repos#get-a-repository")
        return None

    def handle_api(self, path: str, query: str, body: bytes) -> None:
        store = self.server.store
        with store.lock:
            ok, scheme, message = self.auth_ok()
            if not ok:
                self.record("api", 401, scheme, False)
                self.send_json(401, {"message": message, "documentation_url": DOCS, "status": "401"})
                return
            if path != "/rate_limit":
                store.rate_used += 1
            rule = self.take_rule()
            req = Req(
                method=self.command,
                path=unquote(path),
                query=dict(parse_qsl(query, keep_blank_values=True)),
                raw_body=body,
                principal=self.principal,
            )
            reply = Reply(500)
            if rule is None or rule.after:
                try:
                    denied = self.scope_error(path)
                    if denied is not None:
                        raise denied
                    reply = self.server.api.dispatch(req)
                except ApiError as err:
                    reply = Reply(err.status, err.body(), err.headers)
                except Exception as exc:
                    traceback.print_exc()
                    reply = Reply(500, {"message": f"fake-github internal error: {exc!r}", "status": "500"})
            if rule is not None and rule.hang:
                self.record("api", 0, scheme, True)
            elif rule is not None:
                payload, headers = self.failure_payload(rule)
                self.record("api", rule.status, scheme, True)
                self.send_json(rule.status, payload, headers)
                return
            else:
                self.record("api", reply.status, scheme, False)
                self.send_json(reply.status, reply.body, reply.headers)
                return
        self.no_answer(rule.hang)

    def no_answer(self, seconds: float) -> None:
        """Hold the connection for `seconds` (outside the store's lock), then drop it unanswered."""
        time.sleep(seconds)
        self.close_connection = True

    # -- git smart HTTP --------------------------------------------------------------------

    def handle_git(self, path: str, query: str, body: bytes) -> None:
        store = self.server.store
        m = GIT_SERVICE.match(path)
        assert m is not None
        header = self.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        user, password = decode_basic(value.strip()) if scheme.lower() == "basic" else ("", "")
        self.principal = None
        with store.lock:
            full_name = f"{m['owner']}/{m['name']}"
            for candidate in (password, user):
                if not candidate or candidate.count(".") == 2:
                    continue
                principal, _ = store.token_principal(candidate)
                if principal is None:
                    continue
                if principal.issued is not None:
                    installation = store.installations.get(principal.installation_id or -1)
                    if installation is None or not principal.issued.covers(installation, full_name):
                        continue
                self.principal = principal
                break
        authorized = self.principal is not None
        with store.lock:
            repo = store.repos.get(f"{m['owner']}/{m['name']}".lower())
            rule = self.take_rule() if authorized else None
            if not authorized:
                self.record("git", 401, scheme.lower() or None, False)
            elif repo is None or repo.git_dir is None:
                self.record("git", 404, "basic", False)
            elif rule is not None and not rule.after:
                self.record("git", 0 if rule.hang else rule.status, "basic", True)
        if not authorized:
            self.send(
                401,
                b"Invalid username or token. Password authentication is not supported for Git operations.\n",
                {"WWW-Authenticate": 'Basic realm="GitHub"', "Content-Type": "text/plain; charset=utf-8"},
            )
            return
        if repo is None or repo.git_dir is None:
            self.send(404, b"Repository not found.\n", {"Content-Type": "text/plain; charset=utf-8"})
            return
        if rule is not None and not rule.after:
            if rule.hang:
                self.no_answer(rule.hang)
                return
            self.send(rule.status, b"injected failure\n", {"Content-Type": "text/plain; charset=utf-8"})
            return
        env = git_env()
        env.update(
            GIT_PROJECT_ROOT=str(repo.git_dir.parent),
            PATH_INFO=f"/{repo.git_dir.name}{m['rest']}",
            GIT_HTTP_EXPORT_ALL="1",
            REQUEST_METHOD=self.command,
            QUERY_STRING=query,
            CONTENT_TYPE=self.headers.get("Content-Type", ""),
            CONTENT_LENGTH=str(len(body)),
            REMOTE_USER=user or "x-access-token",
            REMOTE_ADDR=self.client_address[0],
            GATEWAY_INTERFACE="CGI/1.1",
            SERVER_PROTOCOL="HTTP/1.1",
        )
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        done = subprocess.run(
            ["git", "http-backend"], input=body, capture_output=True, env=env, timeout=300, check=False
        )
        if done.stderr:
            sys.stderr.write(done.stderr.decode(errors="replace"))
        status, headers, payload = parse_cgi(done.stdout)
        if rule is not None and rule.hang:  # "after": the push/fetch happened, its answer never comes
            with store.lock:
                self.record("git", 0, "basic", True)
            self.no_answer(rule.hang)
            return
        if rule is not None:  # "after": the push/fetch happened, the client still sees a failure
            status, payload = rule.status, b"injected failure\n"
            headers = {"Content-Type": "text/plain; charset=utf-8"}
        with store.lock:
            self.record("git", status, "basic", rule is not None)
        self.send(status, payload, headers)


# RS256 verification with the standard library: RSA public key from PEM (DER walked by hand), then
# EMSA-PKCS1-v1_5 with SHA-256 checked by recomputing the padded digest (RFC 8017, 8.2.2).
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


def _der(data: bytes, pos: int) -> tuple[int, bytes, int]:
    """(tag, content, position after) of the DER element at ``pos``."""
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    return tag, data[pos : pos + length], pos + length


def rsa_public_key(pem: str) -> tuple[int, int]:
    """(n, e) of an RSA public key in PEM: SubjectPublicKeyInfo or PKCS#1 ("RSA PUBLIC KEY")."""
    body = "".join(line for line in pem.strip().splitlines() if not line.startswith("-----"))
    der = base64.b64decode(body)
    _, outer, _ = _der(der, 0)
    tag, first, after = _der(outer, 0)
    if tag == 0x30:  # SubjectPublicKeyInfo: AlgorithmIdentifier, BIT STRING (RSAPublicKey)
        _, bits, _ = _der(outer, after)
        _, outer, _ = _der(bits[1:], 0)
        tag, first, after = _der(outer, 0)
    _, exponent, _ = _der(outer, after)
    return int.from_bytes(first, "big"), int.from_bytes(exponent, "big")


def b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_app_jwt(token: str, app: App) -> str:
    """ "" when ``token`` is a valid app JWT, else GitHub's message for why it is not."""
    undecodable = "A JSON web token could not be decoded"
    try:
        head_b64, claims_b64, sig_b64 = token.split(".")
        header = json.loads(b64url(head_b64))
        claims = json.loads(b64url(claims_b64))
        signature = b64url(sig_b64)
    except (ValueError, binascii.Error):
        return undecodable
    if not isinstance(header, dict) or header.get("alg") != "RS256" or not isinstance(claims, dict):
        return undecodable
    n, e = app.public_key
    size = (n.bit_length() + 7) // 8
    if len(signature) != size:
        return undecodable
    recovered = pow(int.from_bytes(signature, "big"), e, n).to_bytes(size, "big")
    digest = SHA256_DIGEST_INFO + hashlib.sha256(f"{head_b64}.{claims_b64}".encode()).digest()
    expected = b"\x00\x01" + b"\xff" * (size - 3 - len(digest)) + b"\x00" + digest
    if not hmac.compare_digest(recovered, expected):
        return undecodable
    if str(claims.get("iss")) != str(app.id):
        return f"Integration not found for iss {claims.get('iss')!r}"
    now = time.time()
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, int | float) or not isinstance(iat, int | float):
        return undecodable
    if exp <= now:
        return (
            "'Expiration time' claim ('exp') must be a numeric value representing the future time at "
            "which the assertion expires"
        )
    if exp - iat > 600 or exp > now + 600 + 60:
        return "'Expiration time' claim ('exp') is too far in the future"
    if iat > now + 60:
        return "'Issued at' claim ('iat') must be an Integer representing when the assertion was issued"
    return ""


def decode_basic(value: str) -> tuple[str, str]:
    try:
        raw = base64.b64decode(value, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return "", ""
    user, _, password = raw.partition(":")
    return user, password


def parse_cgi(output: bytes) -> tuple[int, dict[str, str], bytes]:
    crlf, lf = output.find(b"\r\n\r\n"), output.find(b"\n\n")
    if crlf != -1 and (lf == -1 or crlf < lf):
        head, payload = output[:crlf], output[crlf + 4 :]
    elif lf != -1:
        head, payload = output[:lf], output[lf + 2 :]
    else:
        return 502, {"Content-Type": "text/plain"}, b"git http-backend produced no headers\n"
    status = 200
    headers: dict[str, str] = {}
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            headers[name.strip()] = value.strip()
    return status, headers, payload


def write_json_atomic(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(payload, fh, indent=2)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fake GitHub REST API + smart-HTTP git server (loopback).")
    parser.add_argument("--state", required=True, type=Path, help="seed state JSON")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--ready-file", type=Path, help="written atomically once listening")
    parser.add_argument("--dump-state", type=Path, help="write the final admin state here on exit")
    parser.add_argument("--exit-with-parent", action="store_true", help="stop when the parent process dies")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)

    seed = json.loads(args.state.read_text(encoding="utf-8"))
    store = Store(seed, base_dir=args.state.resolve().parent)
    server = FakeGitHubServer(args.port, store, verbose=args.verbose)

    def stop(*_: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if args.exit_with_parent:
        parent = os.getppid()

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            stop()

        threading.Thread(target=watch, daemon=True).start()
    if args.ready_file:
        port = server.server_address[1]
        write_json_atomic(
            args.ready_file, {"url": store.url, "api_url": store.api_url, "pid": os.getpid(), "port": port}
        )
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        if args.dump_state:
            with store.lock:
                write_json_atomic(args.dump_state, store.snapshot())
        server.server_close()
    return 0


# --------------------------------------------------------------------------------- test helper


class FakeGitHub:
    """Client-side handle on a fake-GitHub process (for pytest; stdlib only)."""

    def __init__(
        self, proc: subprocess.Popen[bytes], workdir: Path, ready: dict[str, Any], token: str
    ) -> None:
        self.proc = proc
        self.workdir = workdir
        self.url: str = ready["url"]
        self.api_url: str = ready["api_url"]
        self.pid: int = ready["pid"]
        self.token = token
        self.log_path = workdir / "server.log"
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    @classmethod
    def start(
        cls, tmp_path: Path, state: dict[str, Any] | Path, *, timeout: float = 15.0, verbose: bool = False
    ) -> FakeGitHub:
        tmp_path.mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix="fake-github-", dir=tmp_path))
        if isinstance(state, Path):
            state_path = state
            token = json.loads(state.read_text(encoding="utf-8")).get("token", "ghs_fake_token")
        else:
            state_path = workdir / "state.json"
            state_path.write_text(json.dumps(state, indent=2), encoding="utf-8")
            token = state.get("token", "ghs_fake_token")
        ready_path = workdir / "ready.json"
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--state",
            str(state_path),
            "--port",
            "0",
            "--ready-file",
            str(ready_path),
            "--dump-state",
            str(workdir / "final-state.json"),
            "--exit-with-parent",
        ]
        if verbose:
            cmd.append("--verbose")
        log = (workdir / "server.log").open("wb")
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout
        while not ready_path.exists():
            if proc.poll() is not None:
                raise RuntimeError(
                    f"fake GitHub exited with {proc.returncode}:\n"
                    + (workdir / "server.log").read_text(errors="replace")
                )
            if time.monotonic() > deadline:
                proc.kill()
                raise TimeoutError(f"fake GitHub did not become ready within {timeout}s")
            time.sleep(0.02)
        ready = json.loads(ready_path.read_text(encoding="utf-8"))
        return cls(proc, workdir, ready, token)

    # -- admin -----------------------------------------------------------------------------

    def _admin(self, method: str, path: str, payload: Any = None) -> Any:
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            f"{self.url}/_fake/{path}", data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with self._opener.open(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as err:
            raise RuntimeError(f"fake GitHub admin {method} {path}: {err.code} {err.read()!r}") from err

    def state(self) -> dict[str, Any]:
        return self._admin("GET", "state")

    def requests(self) -> list[dict[str, Any]]:
        return self._admin("GET", "requests")

    def repo_state(self, full_name: str) -> dict[str, Any]:
        for repo in self.state()["repos"]:
            if repo["full_name"].lower() == full_name.lower():
                return repo
        raise KeyError(full_name)

    def fail(
        self,
        path_regex: str,
        *,
        method: str | None = None,
        status: int = 500,
        times: int = 1,
        rate_limited: bool = False,
        rate_limit: str = "secondary",
        retry_after: int | None = 1,
        reset_in: int = 1,
        message: str | None = None,
        after: bool = False,
        skip: int = 0,
        hang: float = 0.0,
    ) -> dict[str, Any]:
        """The next ``times`` requests matching method + regex (searched in the raw path incl. query
        and the /api/v3 prefix) are answered with ``status`` instead; ``skip`` lets that many
        matching requests through first (fail the Nth: skip N-1), ``hang`` holds each for that
        many seconds and drops it unanswered (after performing it, with ``after``)."""
        return self._admin(
            "POST",
            "fail",
            {
                "method": method,
                "path_regex": path_regex,
                "status": status,
                "times": times,
                "rate_limited": rate_limited,
                "rate_limit": rate_limit,
                "retry_after": retry_after,
                "reset_in": reset_in,
                "message": message,
                "after": after,
                "skip": skip,
                "hang": hang,
            },
        )

    def clear_failures(self) -> None:
        self._admin("POST", "fail/clear", {})

    def seed(self, payload: dict[str, Any]) -> dict[str, Any]:
        return self._admin("POST", "seed", payload)

    def seed_comment(
        self, full_name: str, issue_number: int, comment_id: int | None, user: str, body: str
    ) -> int:
        """Add a comment by ``user`` (e.g. a "/heal" command); returns its id."""
        comment: dict[str, Any] = {"issue_number": issue_number, "user": user, "body": body}
        if comment_id is not None:
            comment["id"] = comment_id
        return self.seed({"full_name": full_name, "comment": comment})["comment"]

    def seed_pull(self, full_name: str, **pull: Any) -> int:
        """Add a pull request (keys as in the state file: number, title, body, user, head_ref,
        head_sha, base_ref, head_full_name, draft, labels, ...); returns its number."""
        return self.seed({"full_name": full_name, "pull": pull})["pull"]

    def seed_issue(self, full_name: str, **issue: Any) -> int:
        return self.seed({"full_name": full_name, "issue": issue})["issue"]

    def reset_log(self) -> None:
        self._admin("POST", "reset-log", {})

    # -- conveniences ----------------------------------------------------------------------

    def git_url(self, full_name: str) -> str:
        return f"{self.url}/{full_name}.git"

    def basic_auth_header(self, user: str = "x-access-token") -> str:
        return "AUTHORIZATION: basic " + base64.b64encode(f"{user}:{self.token}".encode()).decode()

    def git_auth_args(self) -> list[str]:
        """``git`` options that authenticate like actions/checkout does (token never in the URL)."""
        return ["-c", f"http.extraheader={self.basic_auth_header()}"]

    def git_env(self, *, auth: bool = True) -> dict[str, str]:
        """Environment for ``git`` subprocesses: no prompts, no proxies, optional auth via config env."""
        env = dict(os.environ)
        env.update(GIT_TERMINAL_PROMPT="0", GCM_INTERACTIVE="never", NO_PROXY="127.0.0.1,localhost")
        env["no_proxy"] = env["NO_PROXY"]
        if auth:
            index = int(env.get("GIT_CONFIG_COUNT", "0"))
            env[f"GIT_CONFIG_KEY_{index}"] = "http.extraheader"
            env[f"GIT_CONFIG_VALUE_{index}"] = self.basic_auth_header()
            env["GIT_CONFIG_COUNT"] = str(index + 1)
        return env

    def github(self, token: str | None = None, **kwargs: Any) -> Any:
        """A real PyGithub client pointed at this fake (imports PyGithub lazily).

        PyGithub throttles itself by default (0.25 s between requests, 1 s between writes);
        that is switched off here unless the caller passes those arguments.
        """
        from github import Auth, Github

        kwargs.setdefault("seconds_between_requests", None)
        kwargs.setdefault("seconds_between_writes", None)
        return Github(base_url=self.api_url, auth=Auth.Token(token or self.token), **kwargs)

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> FakeGitHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def iter_requests(state: dict[str, Any], *, kind: str | None = None) -> Iterator[dict[str, Any]]:
    """Requests from a ``FakeGitHub.state()`` snapshot, optionally only ``api``/``git`` ones."""
    for entry in state["requests"]:
        if kind is None or entry["kind"] == kind:
            yield entry


if __name__ == "__main__":
    sys.exit(main())
