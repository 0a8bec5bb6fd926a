"""Clone, commit and push against the fake GitHub's smart-HTTP remote, with real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfheal.bot.exceptions import GitError
from selfheal.bot.gitops import Identity, Remote
from selfheal.bot.publish import BODY_LIMIT, fit_body
from tests.conftest import git
from tests.fakes.github_server import FakeGitHub

TOKEN = "ghs_" + "9" * 36


@pytest.fixture
def fake(tmp_path: Path):
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
        "repos": [{"full_name": "acme/calc", "default_branch": "main", "git_dir": str(remote)}],
    }
    server = FakeGitHub.start(tmp_path / "fake", state)
    yield server, remote, git(work, "rev-parse", "HEAD").strip()
    server.stop()


def test_clone_commit_push_without_leaving_the_token_behind(fake, tmp_path: Path) -> None:
    server, bare, sha = fake
    remote = Remote(server.git_url("acme/calc"), TOKEN)
    repo = remote.clone(tmp_path / "clone", sha=sha, branch="main")
    assert repo.head.commit.hexsha == sha
    config = (tmp_path / "clone" / ".git" / "config").read_text(encoding="utf-8")
    assert TOKEN not in config and "extraheader" not in config

    new = remote.commit(repo, {"calc.py": "def inc(x):\n    return x + 1\n"}, "fix inc", Identity())
    assert remote.remote_branch(repo, "selfheal/abc") is None
    remote.push(repo, new, "selfheal/abc", expected=None)
    assert git(tmp_path, "--git-dir", str(bare), "rev-parse", "selfheal/abc").strip() == new
    assert remote.remote_branch(repo, "selfheal/abc") == (new, repo.commit(new).tree.hexsha)
    author = git(tmp_path, "--git-dir", str(bare), "log", "-1", "--format=%an <%ae>", "selfheal/abc").strip()
    assert author == "selfheal[bot] <selfheal[bot]@users.noreply.github.com>"
    assert not [r for r in server.requests() if r["token_in_url"]]


def test_a_lease_protects_a_branch_someone_else_moved(fake, tmp_path: Path) -> None:
    server, _bare, sha = fake
    remote = Remote(server.git_url("acme/calc"), TOKEN)
    repo = remote.clone(tmp_path / "clone", sha=sha)
    first = remote.commit(repo, {"a.py": "A = 1\n"}, "a", Identity())
    remote.push(repo, first, "selfheal/x", expected=None)
    second = remote.commit(repo, {"b.py": "B = 1\n"}, "b", Identity())
    with pytest.raises(GitError, match="git push to selfheal/x failed"):
        remote.push(repo, second, "selfheal/x", expected=sha)  # not what the branch holds
    remote.push(repo, second, "selfheal/x", expected=first)


def test_errors_name_the_step_and_never_the_token(fake, tmp_path: Path) -> None:
    server, _bare, sha = fake
    wrong = Remote(server.git_url("acme/calc"), "ghs_wrong_token_value")
    with pytest.raises(GitError) as caught:
        wrong.clone(tmp_path / "clone", sha=sha, branch="main")
    assert str(caught.value).startswith(f"git fetch of {sha[:12]} failed")
    assert "ghs_wrong_token_value" not in str(caught.value)
    with pytest.raises(GitError, match="carries credentials"):
        Remote("https://x-access-token:abc@github.com/acme/calc.git", TOKEN)


def test_identity_parsing() -> None:
    assert Identity.parse("") == Identity()
    assert Identity.parse("Repair Bot <bot@example.com>") == Identity("Repair Bot", "bot@example.com")
    with pytest.raises(ValueError, match="is not of the form"):
        Identity.parse("just a name")


def test_long_bodies_are_cut_to_githubs_limit_with_a_link() -> None:
    body = "x" * (BODY_LIMIT + 500)
    cut = fit_body(body, "https://github.com/acme/calc/actions/runs/1")
    assert len(cut) <= BODY_LIMIT
    assert cut.endswith(
        "The full report is in the run's artifact: https://github.com/acme/calc/actions/runs/1\n"
    )
    assert fit_body("short", "u") == "short"
