"""GitHub failing under the bot's own client, against the fake GitHub (a real server, the real
PyGithub): a request whose answer is lost is not repeated when repeating could duplicate it, a pull
request that GitHub made although its answer was lost is found and kept, and the progress comment
is a courtesy whose failure never stops a heal."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfheal.agent.events import Event
from selfheal.bot.exceptions import GitError, GitHubError
from selfheal.bot.github.client import GitHubClient
from selfheal.bot.github.gitdata import ApiStage
from selfheal.bot.github.gitops import Identity, Remote
from selfheal.bot.github.progress import ProgressComment
from selfheal.bot.github.publish import CREATED, Change, publish_pull
from tests.conftest import git
from tests.fakes.github_server import FakeGitHub

TOKEN = "ghs_" + "7" * 36
REPO = "acme/calc"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[FakeGitHub, GitHubClient, str]]:
    work = tmp_path / "seed"
    work.mkdir()
    (work / "calc.py").write_text("def inc(x):\n    return x + 2\n", encoding="utf-8")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "seed")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(work, "push", "-q", str(remote), "main")
    state = {
        "token": TOKEN,
        "repos": [{"full_name": REPO, "default_branch": "main", "git_dir": str(remote),
                   "issues": [{"number": 3, "title": "inc is off", "body": "", "user": "alice"}]}],
    }  # fmt: skip
    server = FakeGitHub.start(tmp_path / "fake", state)
    client = GitHubClient(REPO, TOKEN, api_url=server.api_url, write_interval=0, timeout=1)
    try:
        yield server, client, git(work, "rev-parse", "HEAD").strip()
    finally:
        server.stop()


def _posts(server: FakeGitHub, suffix: str) -> list[int]:
    return [r["status"] for r in server.requests() if r["method"] == "POST" and r["path"].endswith(suffix)]


def test_a_post_whose_answer_is_lost_is_not_repeated(world) -> None:
    server, client, _ = world
    server.fail(r"/issues/3/comments$", method="POST", hang=3, after=True)
    with pytest.raises(GitHubError, match="could not reach GitHub to comment"):
        client.comment(3, "hello")
    assert [c["body"] for c in server.repo_state(REPO)["comments"]] == ["hello"]  # made once, not twice
    assert _posts(server, "/issues/3/comments") == [0]


def test_a_get_without_an_answer_is_retried(world) -> None:
    server, client, _ = world
    server.fail(r"/repos/acme/calc$", method="GET", hang=3)
    assert client.default_branch == "main"
    assert [r["status"] for r in server.requests() if r["path"].endswith("/repos/acme/calc")] == [0, 200]


def test_a_pull_request_made_although_its_answer_was_lost_is_kept(world) -> None:
    server, client, base = world
    server.fail(r"/repos/acme/calc/pulls$", method="POST", hang=3, after=True)
    change = Change(files={"calc.py": "def inc(x):\n    return x + 1\n"}, title="selfheal: fix",
                    message="selfheal: fix inc", body="the fix", signature="s1", branch="selfheal/s1",
                    base_branch="main", base_sha=base, draft=False)  # fmt: skip
    with ApiStage(client, base) as stage:
        publication = publish_pull(client, stage, change, Identity(), reviewer=None)
    assert publication.operation == CREATED
    [pull] = [p for p in server.repo_state(REPO)["pulls"] if p["head"]["ref"] == "selfheal/s1"]
    assert publication.pr_number == pull["number"] and pull["state"] == "open"
    assert any("answer to opening the pull request was lost" in note for note in publication.notes)
    assert _posts(server, "/pulls") == [0]  # not repeated: no 422 "already exists", no second one


def test_a_progress_comment_that_cannot_be_posted_does_not_stop_the_heal(world, capsys) -> None:
    server, client, _ = world
    server.fail(r"/issues/3/comments$", method="POST", status=500)
    progress = ProgressComment(client, 3, "`main`")
    progress.start()
    progress.finish("done")  # no comment to edit: nothing happens
    assert progress.comment_id is None
    assert "could not post the progress comment: GitHub answered 500" in capsys.readouterr().err
    assert server.repo_state(REPO)["comments"] == []


def test_a_progress_comment_that_cannot_be_edited_is_left_alone_until_the_last_edit(world, capsys) -> None:
    server, client, _ = world
    progress = ProgressComment(client, 3, "`main`")
    progress.start()
    server.fail(r"/issues/comments/\d+$", method="PATCH", status=502, times=1000)
    for node in ("baseline", "localize", "validate", "validate"):
        progress.emit(Event(node, 0.0, 1.0, {"status": "ok", "candidate": "c1"}))
    patches = [r for r in server.requests() if r["method"] == "PATCH"]
    assert len(patches) == 6  # the first edit and the client's 5 retries; none for the later steps
    server.clear_failures()
    progress.finish("🚀 done")
    [comment] = server.repo_state(REPO)["comments"]
    assert "🚀 done" in comment["body"] and "verdict for c1" in comment["body"]
    assert capsys.readouterr().err.count("could not update the progress comment") == 1


def test_a_push_that_arrived_although_git_saw_it_fail_is_used(world, tmp_path: Path) -> None:
    # git reports the lost answer as "failed to update ref", as it reports a push that lost a race
    # to another run's identical commit: the branch holds this run's commit, so it is used, never
    # deleted (a branch this run cannot prove it created may back another run's pull request)
    server, client, base = world
    server.fail(r"\.git/git-receive-pack$", method="POST", hang=2, after=True)
    change = Change(files={"calc.py": "def inc(x):\n    return x + 1\n"}, title="selfheal: fix",
                    message="selfheal: fix inc", body="the fix", signature="s2", branch="selfheal/s2",
                    base_branch="main", base_sha=base, draft=False)  # fmt: skip
    with Remote(server.git_url(REPO), TOKEN).stage(tmp_path, base=base) as stage:
        publication = publish_pull(client, stage, change, Identity(), reviewer=None)
    assert [r["status"] for r in server.requests() if "receive-pack" in r["path"]][:2] == [200, 0]
    assert publication.operation == CREATED
    assert server.repo_state(REPO)["branches"]["selfheal/s2"] == publication.commit
    [pull] = server.repo_state(REPO)["pulls"]
    assert (pull["number"], pull["state"]) == (publication.pr_number, "open")
    assert pull["head"]["ref"] == "selfheal/s2"
    assert not [r for r in server.requests() if r["method"] == "DELETE"]


def test_a_fetch_that_gets_no_answer_is_given_up_after_the_stall_time(world, tmp_path: Path) -> None:
    server, _client, base = world
    server.fail(r"\.git/git-upload-pack$", method="POST", hang=30, times=5)
    remote = Remote(server.git_url(REPO), TOKEN, stall_s=2)
    started = time.monotonic()
    with pytest.raises(GitError, match="fetch of"):
        remote.clone(tmp_path / "checkout", sha=base)
    assert time.monotonic() - started < 25  # not the 30 s the server holds each request, nor git's forever
    server.clear_failures()
    assert (remote.clone(tmp_path / "again", sha=base) / "calc.py").is_file()


def test_a_branch_made_through_the_api_although_its_answer_was_lost_is_used(world) -> None:
    server, client, base = world
    server.fail(r"/git/refs$", method="POST", hang=3, after=True)
    change = Change(files={"calc.py": "def inc(x):\n    return x + 1\n"}, title="selfheal: fix",
                    message="selfheal: fix inc", body="the fix", signature="s3", branch="selfheal/s3",
                    base_branch="main", base_sha=base, draft=False)  # fmt: skip
    with ApiStage(client, base) as stage:
        publication = publish_pull(client, stage, change, Identity(), reviewer=None)
    assert publication.operation == CREATED
    assert server.repo_state(REPO)["branches"]["selfheal/s3"] == publication.commit
    assert _posts(server, "/git/refs") == [0]  # not repeated


def test_only_selfheals_own_earlier_progress_comment_is_adopted(world) -> None:
    server, client, _ = world
    key = "comment-4242"
    marker = ProgressComment(client, 3, "`main`", key=key).render("starting").splitlines()[1]
    server.seed_comment(REPO, 3, None, "mallory[bot]", f"{marker}\n⏳ forged, with its own text")
    progress = ProgressComment(client, 3, "`main`", key=key, author="github-actions[bot]")
    progress.start()
    progress.finish("done")
    forged, own = server.repo_state(REPO)["comments"]
    assert "forged" in forged["body"] and "done" not in forged["body"]
    assert own["user"]["login"] == "github-actions[bot]" and own["body"].endswith("done")

    again = ProgressComment(client, 3, "`main`", key=key, author="github-actions[bot]")
    again.start()  # a second attempt of the same request adopts its own comment
    assert again.comment_id == own["id"]
    assert len(server.repo_state(REPO)["comments"]) == 2

    unknown = ProgressComment(client, 3, "`main`", key=key)  # its own login not known: a new one
    unknown.start()
    assert unknown.comment_id not in (forged["id"], own["id"])
