"""Two runs publishing one failure at the same time (two issues, or an issue and a red run), against
the fake GitHub: they meet on one branch and one open pull request, and neither undoes the other.

The runs are real threads with the real stages; `Meeting` is a Publisher that holds each push at a
barrier until both runs have pushed, so both look for the pull request at about the same time and
the second `POST /pulls` meets GitHub's 422 "already exists" (unless its push lost the lease race
and was retried: then it finds the pull request open)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from selfheal.bot.exceptions import BotError
from selfheal.bot.github.client import GitHubClient
from selfheal.bot.github.gitdata import ApiStage
from selfheal.bot.github.gitops import Built, Identity, Remote, RemoteCommit
from selfheal.bot.github.publish import (
    CREATED,
    UNPUBLISHABLE,
    UPDATED,
    Change,
    Publication,
    Publisher,
    publish_pull,
    publishable,
)
from tests.conftest import git
from tests.fakes.github_server import FakeGitHub

TOKEN = "ghs_" + "9" * 36
REPO = "acme/calc"
FIXED = "def inc(x):\n    return x + 1\n"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[FakeGitHub, str]]:
    work = tmp_path / "seed"
    work.mkdir()
    (work / "calc.py").write_text("def inc(x):\n    return x + 2\n", encoding="utf-8")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "seed")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(work, "push", "-q", str(remote), "main")
    server = FakeGitHub.start(tmp_path / "fake", {
        "token": TOKEN, "repos": [{"full_name": REPO, "default_branch": "main", "git_dir": str(remote)}],
    })  # fmt: skip
    try:
        yield server, git(work, "rev-parse", "HEAD").strip()
    finally:
        server.stop()


class Meeting:
    """A stage whose push returns only once the other run's push returned too."""

    def __init__(self, stage: Publisher, barrier: threading.Barrier) -> None:
        self.stage = stage
        self.barrier = barrier
        self.base = stage.base
        self.pushed = False

    def commit(self, files: Mapping[str, str], message: str, author: Identity) -> Built:
        return self.stage.commit(files, message, author)

    def remote_branch(self, branch: str) -> RemoteCommit | None:
        return self.stage.remote_branch(branch)

    def push(self, sha: str, branch: str, *, expected: str | None) -> None:
        first, self.pushed = not self.pushed, True
        try:
            self.stage.push(sha, branch, expected=expected)
        finally:
            if first:  # a push again after a lost lease is not held: the other run is past the barrier
                self.barrier.wait(timeout=30)


def change(base: str, title: str, branch: str) -> Change:
    return Change(files={"calc.py": FIXED}, title=title, message="selfheal: fix inc", body=title,
                  signature=branch.split("/")[1], branch=branch, base_branch="main", base_sha=base,
                  draft=False)  # fmt: skip


def race(server: FakeGitHub, base: str, branch: str, tmp: Path, how: str) -> list[Publication | Exception]:
    barrier = threading.Barrier(2)
    results: list[Publication | Exception] = [RuntimeError("did not run")] * 2

    def run(n: int) -> None:
        client = GitHubClient(REPO, TOKEN, api_url=server.api_url, write_interval=0)
        asked = change(base, f"run {n}", branch)
        try:
            if how == "api":
                with ApiStage(client, base) as stage:
                    results[n] = publish_pull(
                        client, Meeting(stage, barrier), asked, Identity(), reviewer=None
                    )
            else:
                with Remote(server.git_url(REPO), TOKEN).stage(tmp, base=base) as stage:
                    results[n] = publish_pull(
                        client, Meeting(stage, barrier), asked, Identity(), reviewer=None
                    )
        except Exception as exc:  # recorded: the assertion below names it
            results[n] = exc
            barrier.abort()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


@pytest.mark.parametrize("how", ["git", "api"])
def test_two_runs_publishing_one_failure_at_once_end_with_one_open_pull_request(
    world, tmp_path: Path, how: str
) -> None:
    server, base = world
    for round_ in range(5):
        branch = f"selfheal/race{round_}"
        (tmp_path / str(round_)).mkdir()
        results = race(server, base, branch, tmp_path / str(round_), how)
        assert all(isinstance(r, Publication) for r in results), [str(r) for r in results]
        publications = [r for r in results if isinstance(r, Publication)]
        pulls = [p for p in server.repo_state(REPO)["pulls"] if p["head"]["ref"] == branch]
        [pull] = pulls
        assert pull["state"] == "open"
        assert {p.pr_number for p in publications} == {pull["number"]}
        assert sorted(p.operation for p in publications) in ([CREATED, UPDATED], [CREATED, "none"])
        assert server.repo_state(REPO)["branches"][branch] == pull["head"]["sha"]
    posts = [r["status"] for r in server.requests() if r["method"] == "POST" and r["path"].endswith("/pulls")]
    # each round opened one pull request; the other run met GitHub's "already exists" or, when its
    # push lost the race and went over the winner's commit, found the pull request already open
    assert posts.count(201) == 5 and set(posts) <= {201, 422}
    assert not [r for r in server.requests() if r["method"] == "DELETE"]  # no branch was ever deleted


@pytest.mark.parametrize(
    "path",
    [".github/workflows/selfheal-tests.yml", ".GitHub/actions/x/action.yml", "tests/../../etc/x.py",
     "/tmp/x.py", "pkg/.git/hooks/post-checkout", "tests//test_x.py", "tests\\test_x.py"],
)  # fmt: skip
def test_a_change_that_writes_outside_source_and_tests_is_not_pushed(
    world: tuple[FakeGitHub, str], path: str
) -> None:
    server, base = world
    client = GitHubClient(REPO, TOKEN, api_url=server.api_url, write_interval=0)
    asked = replace(change(base, "fix inc", "selfheal/0123456789ab"), files={"calc.py": FIXED, path: "x\n"})
    with ApiStage(client, base) as stage, pytest.raises(BotError) as refused:
        publish_pull(client, stage, asked, Identity(), reviewer=None)
    assert str(refused.value) == f"the change writes {path}: {UNPUBLISHABLE}; nothing was pushed"
    assert client.pulls_for_commit(base) == []
    assert client.branch_sha("selfheal/0123456789ab") is None


def test_source_files_and_new_tests_are_publishable() -> None:
    assert [publishable(p) for p in ("calc.py", "src/pkg/mod.py", "tests/test_selfheal_calc.py", ".gitignore",
                                     "docs/.github.md")] == [True] * 5  # fmt: skip
