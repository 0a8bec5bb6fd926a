"""The fake GitHub driven by the real PyGithub client and the real git command line."""

from __future__ import annotations

import base64
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from github import Github, GithubException, GithubRetry, InputGitAuthor, InputGitTreeElement
from github.GithubException import BadCredentialsException, RateLimitExceededException, UnknownObjectException

from tests.fakes.github_server import FakeGitHub

TOKEN = "ghs_secret123"
BOT = "github-actions[bot]"


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout.strip() if check else done.stderr


def commit(work: Path, name: str, text: str) -> str:
    (work / name).write_text(text, encoding="utf-8")
    git(work, "add", name)
    git(work, "commit", "-q", "-m", f"change {name}")
    return git(work, "rev-parse", "HEAD")


@pytest.fixture
def remote(tmp_path: Path) -> dict[str, Any]:
    """A bare remote with main and feature, pushed with plain git (no server involved)."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = tmp_path / "seed"
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    main_sha = commit(work, "README.md", "hello\n")
    git(work, "checkout", "-q", "-b", "feature")
    feature_sha = commit(work, "feature.py", "x = 1\n")
    git(work, "push", "-q", str(bare), "main", "feature")
    return {"bare": bare, "work": work, "main": main_sha, "feature": feature_sha}


@pytest.fixture
def fake(tmp_path: Path, remote: dict[str, Any]) -> Iterator[FakeGitHub]:
    state = {
        "token": TOKEN,
        "bot_login": BOT,
        "repos": [
            {
                "full_name": "acme/widgets",
                "default_branch": "main",
                "git_dir": str(remote["bare"]),
                "collaborators": {
                    "alice": "write",
                    "bob": "read",
                    "carol": "admin",
                    "maint": "maintain",
                    "tri": "triage",
                },
                "pulls": [
                    {
                        "number": 7,
                        "title": "Add feature",
                        "body": "Please review",
                        "user": "alice",
                        "head_ref": "feature",
                        "head_sha": None,
                        "base_ref": "main",
                        "head_full_name": "acme/widgets",
                    }
                ],
                "issues": [{"number": 3, "title": "Tests fail", "body": "see CI", "user": "alice"}],
            }
        ],
    }
    server = FakeGitHub.start(tmp_path, state)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def gh(fake: FakeGitHub) -> Github:
    return fake.github()


def api_entries(fake: FakeGitHub, pattern: str) -> list[tuple[str, int]]:
    return [
        (r["method"], r["status"]) for r in fake.requests() if r["kind"] == "api" and pattern in r["path"]
    ]


def test_ready_file_urls_and_repo_shape(fake: FakeGitHub, gh: Github) -> None:
    assert fake.url.startswith("http://127.0.0.1:")
    assert fake.api_url == fake.url + "/api/v3"
    repo = gh.get_repo("acme/widgets")
    assert repo.full_name == "acme/widgets"
    assert repo.default_branch == "main"
    assert repo.clone_url == f"{fake.url}/acme/widgets.git"
    assert repo.html_url == f"{fake.url}/acme/widgets"
    assert repo.url == f"{fake.api_url}/repos/acme/widgets"
    assert repo.fork is False
    assert repo.owner.login == "acme"


def test_permissions(gh: Github) -> None:
    repo = gh.get_repo("acme/widgets")
    assert repo.get_collaborator_permission("alice") == "write"
    assert repo.get_collaborator_permission("bob") == "read"
    assert repo.get_collaborator_permission("carol") == "admin"
    assert repo.get_collaborator_permission("maint") == "write"
    assert repo.get_collaborator_role_name("maint") == "maintain"
    assert repo.get_collaborator_permission("tri") == "read"
    assert repo.get_collaborator_role_name("tri") == "triage"
    assert repo.get_collaborator_permission("mallory") == "none"
    assert repo.get_collaborator_permission("ALICE") == "write"  # logins are case-insensitive


def test_comment_edit_react_and_delete(fake: FakeGitHub, gh: Github) -> None:
    issue = gh.get_repo("acme/widgets").get_issue(3)
    assert issue.pull_request is None
    comment = issue.create_comment("working on it")
    assert comment.user.login == BOT
    assert comment.user.type == "Bot"
    assert comment.html_url == f"{fake.url}/acme/widgets/issues/3#issuecomment-{comment.id}"
    comment.edit("done: fixed")
    assert comment.body == "done: fixed"
    first = comment.create_reaction("eyes")
    again = comment.create_reaction("eyes")
    rocket = comment.create_reaction("rocket")
    assert first.content == "eyes"
    assert again.id == first.id  # same user + same content -> the existing reaction (200)
    assert rocket.id != first.id
    assert [r.content for r in comment.get_reactions()] == ["eyes", "rocket"]
    assert issue.create_reaction("+1").content == "+1"
    with pytest.raises(GithubException) as err:
        comment.create_reaction("party")
    assert err.value.status == 422

    repo_state = fake.repo_state("acme/widgets")
    [saved] = repo_state["comments"]  # GitHub's comment JSON plus issue_number and edits
    assert saved["body"] == "done: fixed"
    assert saved["user"]["login"] == BOT
    assert (saved["issue_number"], saved["edits"]) == (3, 1)
    assert saved["reactions"]["total_count"] == 2
    flat = [
        (r["comment_id"], r["issue_number"], r["user"]["login"], r["content"])
        for r in repo_state["reactions"]
    ]
    assert flat == [(comment.id, 3, BOT, "eyes"), (comment.id, 3, BOT, "rocket"), (None, 3, BOT, "+1")]
    statuses = [s for m, s in api_entries(fake, f"/issues/comments/{comment.id}/reactions") if m == "POST"]
    assert statuses == [201, 200, 201, 422]

    comment.delete()
    repo_state = fake.repo_state("acme/widgets")
    assert repo_state["comments"] == []
    assert repo_state["deleted_comments"][0]["body"] == "done: fixed"


def test_seeded_comments_paginate(fake: FakeGitHub, gh: Github) -> None:
    for i in range(35):
        fake.seed_comment("acme/widgets", 7, 9000 + i if i < 2 else None, "bob", f"c{i}")
    pr = gh.get_repo("acme/widgets").get_pull(7)
    bodies = [c.body for c in pr.get_issue_comments()]
    assert bodies == [f"c{i}" for i in range(35)]
    assert len(api_entries(fake, "/issues/7/comments")) == 2  # page 1 (30) + page 2 via the Link header


def test_create_pull_duplicate_and_filters(fake: FakeGitHub, gh: Github, remote: dict[str, Any]) -> None:
    work = remote["work"]
    git(work, "checkout", "-q", "-b", "selfheal/fix-3")
    fix_sha = commit(work, "fix.py", "fixed = True\n")
    git(work, "push", "-q", fake.git_url("acme/widgets"), "selfheal/fix-3", env=fake.git_env())

    repo = gh.get_repo("acme/widgets")
    pr = repo.create_pull(base="main", head="selfheal/fix-3", title="Fix #3", body="Fixes #3", draft=True)
    assert pr.number == 8  # issues and PRs share one counter: 3 and 7 are taken
    assert pr.user.login == BOT and pr.user.type == "Bot"
    assert pr.draft is True
    assert pr.head.sha == fix_sha
    assert pr.head.ref == "selfheal/fix-3"
    assert pr.head.label == "acme:selfheal/fix-3"
    assert pr.base.sha == remote["main"]
    assert pr.html_url == f"{fake.url}/acme/widgets/pull/8"
    assert pr.as_issue().pull_request.html_url == pr.html_url

    with pytest.raises(GithubException) as dup:
        repo.create_pull(base="main", head="selfheal/fix-3", title="again")
    assert dup.value.status == 422
    assert dup.value.data["message"] == "Validation Failed"
    assert dup.value.data["errors"][0]["message"] == "A pull request already exists for acme:selfheal/fix-3."

    with pytest.raises(GithubException) as missing:
        repo.create_pull(base="main", head="no-such-branch", title="nope")
    assert missing.value.status == 422
    assert missing.value.data["errors"] == [{"resource": "PullRequest", "field": "head", "code": "invalid"}]

    assert [p.number for p in repo.get_pulls(state="open", head="acme:selfheal/fix-3")] == [8]
    assert [p.number for p in repo.get_pulls(head="acme:feature", base="main")] == [7]
    assert [p.number for p in repo.get_pulls(head="someone-else:selfheal/fix-3")] == []
    # Like GitHub, a head filter without "owner:" is ignored: every open PR comes back.
    assert [p.number for p in repo.get_pulls(head="selfheal/fix-3")] == [8, 7]

    pr.create_review_request(reviewers=["bob"])
    with pytest.raises(GithubException) as author:
        repo.get_pull(7).create_review_request(reviewers=["alice"])
    assert (author.value.status, author.value.data["message"]) == (
        422,
        "Review cannot be requested from pull request author.",
    )
    with pytest.raises(GithubException) as outsider:
        pr.create_review_request(reviewers=["mallory"])
    assert outsider.value.status == 422
    assert [u.login for u in repo.get_pull(8).requested_reviewers] == ["bob"]

    pr.add_to_labels("selfheal")
    pr.edit(title="Fix #3 (v2)", body="new body")
    state = fake.repo_state("acme/widgets")
    saved = next(p for p in state["pulls"] if p["number"] == 8)
    assert saved["title"] == "Fix #3 (v2)"
    assert saved["body"] == "new body"
    assert saved["draft"] is True
    assert [label["name"] for label in saved["labels"]] == ["selfheal"]
    assert [user["login"] for user in saved["requested_reviewers"]] == ["bob"]
    assert saved["head_sha"] == saved["head"]["sha"] == fix_sha
    assert (saved["head"]["ref"], saved["base"]["ref"], saved["fork"]) == ("selfheal/fix-3", "main", False)

    pr.edit(state="closed")
    assert [p.number for p in repo.get_pulls(state="closed")] == [8]
    assert [p.number for p in repo.get_pulls(state="all")] == [8, 7]


def test_force_push_moves_pr_head_and_commit_pulls(
    fake: FakeGitHub, gh: Github, remote: dict[str, Any]
) -> None:
    repo = gh.get_repo("acme/widgets")
    assert repo.get_pull(7).head.sha == remote["feature"]
    assert [p.number for p in repo.get_commit(remote["feature"]).get_pulls()] == [7]

    work = remote["work"]
    git(work, "checkout", "-q", "feature")
    git(work, "commit", "-q", "--amend", "-m", "rewritten")
    new_sha = git(work, "rev-parse", "HEAD")
    assert new_sha != remote["feature"]
    git(work, "push", "-q", "--force", fake.git_url("acme/widgets"), "feature", env=fake.git_env())

    assert repo.get_pull(7).head.sha == new_sha
    assert [p.number for p in repo.get_commit(new_sha).get_pulls()] == [7]
    assert list(repo.get_commit(remote["feature"]).get_pulls()) == []
    assert fake.repo_state("acme/widgets")["pulls"][0]["head_sha"] == new_sha
    # GitHub's refs/pull/N/head follows the PR head.
    assert git(remote["bare"], "rev-parse", "refs/pull/7/head") == new_sha


def test_branch_ref_and_delete(fake: FakeGitHub, gh: Github, remote: dict[str, Any]) -> None:
    repo = gh.get_repo("acme/widgets")
    branch = repo.get_branch("feature")
    assert branch.commit.sha == remote["feature"]
    ref = repo.get_git_ref("heads/feature")
    assert ref.ref == "refs/heads/feature"
    assert ref.object.sha == remote["feature"]
    ref.delete()

    with pytest.raises(UnknownObjectException):
        repo.get_branch("feature")
    with pytest.raises(UnknownObjectException):
        repo.get_git_ref("heads/feature")
    state = fake.repo_state("acme/widgets")
    assert state["branches"] == {"main": remote["main"]}
    assert state["pulls"][0]["head_sha"] == remote["feature"]  # the PR keeps its last head
    assert ("DELETE", 204) in api_entries(fake, "/git/refs/heads/feature")


def test_git_database_blob_tree_commit_and_ref(fake: FakeGitHub, gh: Github, remote: dict[str, Any]) -> None:
    """A commit made through the Git Data API, as PyGithub makes it, lands in the bare remote."""
    repo = gh.get_repo("acme/widgets")
    blob = repo.create_git_blob(base64.b64encode(b"x = 2\r\n").decode(), "base64")
    assert repo.get_git_blob(blob.sha).content.replace("\n", "") == base64.b64encode(b"x = 2\r\n").decode()
    base = repo.get_git_commit(remote["feature"])
    assert [p.sha for p in base.parents] == [remote["main"]]
    base_tree = repo.get_git_tree(base.tree.sha)
    assert {(e.path, e.mode, e.type) for e in base_tree.tree} == {
        ("README.md", "100644", "blob"),
        ("feature.py", "100644", "blob"),
    }
    tree = repo.create_git_tree(
        [
            InputGitTreeElement("feature.py", "100644", "blob", sha=blob.sha),
            InputGitTreeElement("bin/run", "100755", "blob", content="#!/bin/sh\n"),
            InputGitTreeElement("README.md", "100644", "blob", sha=None),
        ],
        base_tree,
    )
    assert {(e.path, e.type) for e in tree.tree} == {("feature.py", "blob"), ("bin", "tree")}
    assert {e.path for e in repo.get_git_tree(tree.sha, recursive=True).tree} == {
        "feature.py",
        "bin",
        "bin/run",
    }
    made = repo.create_git_commit("two\n", tree, [base], author=InputGitAuthor("Ann", "ann@example.com"))
    assert (made.author.name, made.committer.email, made.message) == ("Ann", "ann@example.com", "two\n")
    assert [p.sha for p in made.parents] == [remote["feature"]] and made.tree.sha == tree.sha
    assert made.raw_data["verification"]["reason"] == "unsigned"
    by_default = repo.create_git_commit("bot", tree, [])
    assert by_default.author.name == by_default.committer.name == BOT
    repo.create_git_ref("refs/heads/made", made.sha)

    shown = subprocess.run(
        ["git", "--git-dir", str(remote["bare"]), "show", "made:feature.py"], capture_output=True, check=True
    )
    assert shown.stdout == b"x = 2\r\n"
    listed = git(remote["bare"], "ls-tree", "-r", "made")
    assert [line.split()[0] for line in listed.splitlines()] == ["100755", "100644"]
    with pytest.raises(GithubException) as caught:
        repo.create_git_tree([InputGitTreeElement("a", "100644", "blob", sha="0" * 40)])
    assert caught.value.status == 422
    assert ("POST", 201) in api_entries(fake, "/git/commits")


def test_git_requires_basic_auth(fake: FakeGitHub, tmp_path: Path) -> None:
    url = fake.git_url("acme/widgets")
    stderr = git(
        tmp_path, "clone", "-q", url, str(tmp_path / "anon"), env=fake.git_env(auth=False), check=False
    )
    assert not (tmp_path / "anon").exists()
    assert "could not read Username" in stderr  # got a 401 challenge; GIT_TERMINAL_PROMPT=0 stops there

    wrong = dict(fake.git_env(auth=False))
    bad = subprocess.run(
        [
            "git",
            "-c",
            "http.extraheader=AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46bm9wZQ==",
            "clone",
            "-q",
            url,
        ],
        cwd=tmp_path,
        env=wrong,
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0

    git(tmp_path, "clone", "-q", url, str(tmp_path / "ok"), env=fake.git_env())
    assert (tmp_path / "ok" / "README.md").read_text() == "hello\n"
    git(tmp_path / "ok", "checkout", "-q", "-b", "pushed")
    sha = commit(tmp_path / "ok", "new.txt", "n\n")
    git(tmp_path / "ok", "push", "-q", "origin", "pushed", env=fake.git_env())
    git(tmp_path / "ok", "fetch", "-q", "origin", env=fake.git_env())
    assert fake.repo_state("acme/widgets")["branches"]["pushed"] == sha

    git_requests = [r for r in fake.requests() if r["kind"] == "git"]
    assert {r["status"] for r in git_requests} == {200, 401}
    assert any(r["path"].endswith("/git-receive-pack") and r["status"] == 200 for r in git_requests)
    assert not any(r["token_in_url"] for r in git_requests)


def test_api_auth_and_token_in_url_logging(fake: FakeGitHub) -> None:
    with pytest.raises(BadCredentialsException) as err:
        fake.github(token="ghs_wrong").get_repo("acme/widgets")
    assert err.value.status == 401
    assert err.value.data["message"] == "Bad credentials"
    anonymous = Github(base_url=fake.api_url, retry=None)
    with pytest.raises(GithubException) as anon:
        anonymous.get_repo("acme/widgets")
    assert anon.value.status == 401
    with pytest.raises(UnknownObjectException):
        fake.github().get_repo("acme/nope")

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with pytest.raises(urllib.error.HTTPError) as leaked:
        opener.open(f"{fake.api_url}/repos/acme/widgets?access_token={TOKEN}", timeout=10)
    assert leaked.value.code == 401
    log = fake.requests()
    assert [r["status"] for r in log] == [401, 401, 404, 401]
    assert [r["token_in_url"] for r in log] == [False, False, False, True]


def test_default_retry_retries_500_on_get(fake: FakeGitHub) -> None:
    default = Github.default_retry
    assert isinstance(default, GithubRetry)
    assert (default.total, default.backoff_factor, default.secondary_rate_wait) == (10, 0, 60)
    assert set(default.status_forcelist) == {*range(500, 600), 403}
    assert "POST" in default.allowed_methods and "PATCH" not in default.allowed_methods

    fake.fail(r"/repos/acme/widgets/pulls/7$", method="GET", status=500, times=2)
    pr = fake.github().get_repo("acme/widgets").get_pull(7)
    assert pr.title == "Add feature"
    assert api_entries(fake, "/pulls/7") == [("GET", 500), ("GET", 500), ("GET", 200)]


def test_post_is_retried_too_so_a_lost_reply_duplicates_the_comment(fake: FakeGitHub) -> None:
    # The comment is created, but the client sees a 502 (e.g. a proxy timeout): PyGithub retries the POST.
    fake.fail(r"/issues/3/comments$", method="POST", status=502, times=1, after=True)
    comment = fake.github().get_repo("acme/widgets").get_issue(3).create_comment("hello")
    assert comment.body == "hello"
    assert [c["body"] for c in fake.repo_state("acme/widgets")["comments"]] == ["hello", "hello"]


def test_small_retry_gives_up_with_status(fake: FakeGitHub) -> None:
    fake.fail(r"/pulls/7$", method="GET", status=500, times=5)
    client = fake.github(retry=GithubRetry(total=1, backoff_factor=0.01))
    with pytest.raises(Exception) as err:
        client.get_repo("acme/widgets").get_pull(7)
    # urllib3 raises MaxRetryError, which requests turns into RetryError: not a GithubException.
    assert type(err.value).__name__ == "RetryError"
    assert api_entries(fake, "/pulls/7") == [("GET", 500), ("GET", 500)]


def test_secondary_rate_limit_is_retried_after_retry_after(fake: FakeGitHub) -> None:
    fake.fail(r"/pulls/7$", method="GET", status=403, rate_limited=True, times=1)
    started = time.monotonic()
    pr = fake.github().get_repo("acme/widgets").get_pull(7)
    assert pr.number == 7
    assert time.monotonic() - started >= 1.0  # honoured Retry-After: 1
    assert api_entries(fake, "/pulls/7") == [("GET", 403), ("GET", 200)]


def test_primary_rate_limit_waits_for_reset(fake: FakeGitHub) -> None:
    fake.fail(r"/issues/3$", method="GET", status=403, rate_limited=True, rate_limit="primary", reset_in=1)
    issue = fake.github().get_repo("acme/widgets").get_issue(3)
    assert issue.title == "Tests fail"
    assert api_entries(fake, "/issues/3") == [("GET", 403), ("GET", 200)]


def test_rate_limited_patch_is_not_retried(fake: FakeGitHub) -> None:
    pr = fake.github().get_repo("acme/widgets").get_pull(7)
    fake.fail(r"/pulls/7$", method="PATCH", status=403, rate_limited=True, times=1)
    with pytest.raises(RateLimitExceededException) as err:
        pr.edit(title="x")
    assert err.value.status == 403
    assert err.value.headers["retry-after"] == "1"
    fake.fail(r"/pulls/7$", method="GET", status=403, times=1)  # plain 403: not retried either
    with pytest.raises(GithubException) as plain:
        fake.github().get_repo("acme/widgets").get_pull(7)
    assert plain.value.status == 403


def test_fork_pull_from_pull_ref(fake: FakeGitHub, gh: Github, remote: dict[str, Any]) -> None:
    work = remote["work"]
    git(work, "checkout", "-q", "-b", "fork-work", remote["main"])
    fork_sha = commit(work, "fork.py", "from_fork = 1\n")
    git(work, "push", "-q", str(remote["bare"]), "HEAD:refs/pull/9/head")  # what GitHub stores for forks
    number = fake.seed_pull(
        "acme/widgets", number=9, title="From a fork", user="mallory", head_ref="main",
        head_full_name="mallory/widgets", head_sha=None,
    )  # fmt: skip
    assert number == 9
    repo = gh.get_repo("acme/widgets")
    pr = repo.get_pull(9)
    assert pr.head.sha == fork_sha
    assert pr.head.label == "mallory:main"
    assert pr.head.repo.full_name == "mallory/widgets"
    assert pr.head.repo.fork is True
    assert pr.head.repo.parent.full_name == "acme/widgets"
    assert [p.number for p in repo.get_commit(fork_sha).get_pulls()] == [9]
    assert [p.number for p in repo.get_pulls(head="mallory:main")] == [9]
    assert repo.get_collaborator_permission("mallory") == "none"

    # A fork with neither a git dir nor refs/pull/N/head: the base repo's same-named branch stands in.
    fake.seed_pull("acme/widgets", number=10, user="eve", head_ref="feature", head_full_name="eve/widgets")
    assert repo.get_pull(10).head.sha == remote["feature"]
    assert git(remote["bare"], "rev-parse", "refs/pull/10/head") == remote["feature"]
    assert [p.number for p in repo.get_commit(remote["feature"]).get_pulls()] == [10, 7]


def test_pull_commits_files_and_labels(fake: FakeGitHub, gh: Github, remote: dict[str, Any]) -> None:
    pr = gh.get_repo("acme/widgets").get_pull(7)
    assert (pr.commits, pr.changed_files, pr.additions, pr.deletions) == (1, 1, 1, 0)
    assert [c.sha for c in pr.get_commits()] == [remote["feature"]]
    [changed] = list(pr.get_files())
    assert (changed.filename, changed.status, changed.additions) == ("feature.py", "added", 1)
    assert changed.patch == "@@ -0,0 +1 @@\n+x = 1\n"

    pr.add_to_labels("bug")  # PyGithub posts a bare JSON list
    status, _, body = gh.requester.requestJson(
        "POST", "/repos/acme/widgets/issues/7/labels", input={"labels": ["selfheal", "bug"]}
    )
    assert status == 200
    assert '"name": "selfheal"' in body
    assert [label.name for label in pr.get_labels()] == ["bug", "selfheal"]
    assert fake.repo_state("acme/widgets")["labels"] == ["bug", "selfheal"]


def test_unknown_route_is_github_404(fake: FakeGitHub, gh: Github) -> None:
    status, headers, body = gh.requester.requestJson("GET", "/repos/acme/widgets/no/such/thing")
    assert status == 404
    assert '"message": "Not Found"' in body
    assert headers["content-type"] == "application/json; charset=utf-8"
    assert headers["x-ratelimit-limit"] == "5000"
    assert "x-github-request-id" in headers


def test_process_stops_on_sigterm(fake: FakeGitHub) -> None:
    fake.stop()
    assert fake.proc.returncode == 0
    final = (fake.workdir / "final-state.json").read_text()
    assert '"acme/widgets"' in final


def test_a_rule_can_skip_matches_and_hang_without_an_answer(fake: FakeGitHub) -> None:
    # skip: the first matching request passes, the second gets the failure
    fake.fail(r"/issues/3$", method="GET", status=502, skip=1)
    repo = fake.github(retry=None).get_repo("acme/widgets")
    assert repo.get_issue(3).title == "Tests fail"
    with pytest.raises(GithubException) as err:
        repo.get_issue(3)
    assert err.value.status == 502
    assert api_entries(fake, "/issues/3") == [("GET", 200), ("GET", 502)]

    # hang: no answer within the client's timeout; with `after`, the request was performed
    fake.fail(r"/issues/3/comments$", method="POST", hang=3, after=True)
    slow = fake.github(retry=None, timeout=1).get_repo("acme/widgets").get_issue(3)
    started = time.monotonic()
    with pytest.raises(Exception) as lost:
        slow.create_comment("hello")
    assert "timed out" in str(lost.value).lower() or "Timeout" in type(lost.value).__name__
    assert time.monotonic() - started < 2.5
    assert [c["body"] for c in fake.repo_state("acme/widgets")["comments"]] == ["hello"]
    assert api_entries(fake, "/issues/3/comments") == [("POST", 0)]
    assert fake.state()["fail_rules"][-1]["hang"] == 3
