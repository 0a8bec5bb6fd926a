"""Event payloads shaped as GitHub sends them (fields per the webhook docs; trimmed of URLs we never read)."""

from __future__ import annotations

from typing import Any

API = "https://api.github.com"


def user(login: str, uid: int = 1001) -> dict[str, Any]:
    kind = "Bot" if login.endswith("[bot]") else "User"
    return {
        "login": login, "id": uid, "node_id": f"U_{uid}", "type": kind, "site_admin": False,
        "url": f"{API}/users/{login}", "html_url": f"https://github.com/{login}",
    }  # fmt: skip


def repository(full_name: str = "acme/widgets", default_branch: str = "main") -> dict[str, Any]:
    owner, name = full_name.split("/")
    return {
        "id": 4242, "node_id": "R_4242", "name": name, "full_name": full_name, "private": False,
        "owner": user(owner, 900), "html_url": f"https://github.com/{full_name}",
        "url": f"{API}/repos/{full_name}", "clone_url": f"https://github.com/{full_name}.git",
        "default_branch": default_branch, "fork": False, "visibility": "public",
    }  # fmt: skip


def issue_comment(
    body: str,
    *,
    login: str = "alice",
    number: int = 7,
    pull_request: bool = True,
    action: str = "created",
    comment_id: int = 5001,
    title: str = "merge drops touching intervals",
    issue_body: str = "",
    full_name: str = "acme/widgets",
) -> dict[str, Any]:
    issue: dict[str, Any] = {
        "url": f"{API}/repos/{full_name}/issues/{number}", "id": 70000 + number, "number": number,
        "title": title, "user": user("alice"), "labels": [], "state": "open", "locked": False,
        "comments": 0, "created_at": "2026-11-20T10:00:00Z", "updated_at": "2026-11-20T10:00:00Z",
        "author_association": "MEMBER", "body": issue_body,
    }  # fmt: skip
    if pull_request:
        issue["pull_request"] = {
            "url": f"{API}/repos/{full_name}/pulls/{number}",
            "html_url": f"https://github.com/{full_name}/pull/{number}",
        }
    payload: dict[str, Any] = {
        "action": action,
        "issue": issue,
        "comment": {
            "url": f"{API}/repos/{full_name}/issues/comments/{comment_id}",
            "id": comment_id,
            "node_id": f"IC_{comment_id}",
            "user": user(login, 2000 + len(login)),
            "created_at": "2026-11-20T10:05:00Z",
            "updated_at": "2026-11-20T10:05:00Z",
            "author_association": "COLLABORATOR",
            "body": body,
        },
        "repository": repository(full_name),
        "sender": user(login, 2000 + len(login)),
    }
    if action == "edited":
        payload["changes"] = {"body": {"from": "earlier text"}}
    return payload


def workflow_run(
    *,
    conclusion: str,
    head_sha: str,
    head_branch: str = "main",
    head_repo: str | None = "acme/widgets",  # None: null, as GitHub sends for a deleted fork
    pulls: list[dict[str, Any]] | None = None,
    full_name: str = "acme/widgets",
) -> dict[str, Any]:
    return {
        "action": "completed",
        "workflow_run": {
            "id": 9911,
            "name": "CI",
            "node_id": "WFR_9911",
            "head_branch": head_branch,
            "head_sha": head_sha,
            "path": ".github/workflows/ci.yml",
            "run_number": 12,
            "event": "pull_request" if pulls is not None else "push",
            "status": "completed",
            "conclusion": conclusion,
            "workflow_id": 77,
            "html_url": f"https://github.com/{full_name}/actions/runs/9911",
            "pull_requests": pulls or [],
            "created_at": "2026-11-20T10:00:00Z",
            "head_repository": repository(head_repo) if head_repo is not None else None,
            "repository": repository(full_name),
            "actor": user("alice"),
            "triggering_actor": user("alice"),
        },
        "workflow": {"id": 77, "name": "CI", "path": ".github/workflows/ci.yml"},
        "repository": repository(full_name),
        "sender": user("alice"),
    }


def workflow_dispatch(ref: str = "main", test_command: str = "", full_name: str = "acme/widgets") -> dict:
    return {
        "inputs": {"ref": ref, "test-command": test_command},
        "ref": f"refs/heads/{ref}",
        "repository": repository(full_name),
        "sender": user("carol"),
        "workflow": ".github/workflows/heal.yml",
    }
