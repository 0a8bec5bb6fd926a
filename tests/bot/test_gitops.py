"""Clone, commit and push against the fake GitHub's smart-HTTP remote, with real git."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from selfheal.bot.exceptions import GitError
from selfheal.bot.github.gitops import Identity, Remote, RemoteCommit
from selfheal.bot.github.publish import BODY_LIMIT, fit_body
from tests.action.conftest import all_text_under
from tests.conftest import git
from tests.fakes.github_server import FakeGitHub

TOKEN = "ghs_" + "9" * 36


@pytest.fixture
def fake(tmp_path: Path):
    work = tmp_path / "seed"
    work.mkdir()
    (work / "calc.py").write_text("def inc(x):\n    return x + 2\n", encoding="utf-8")
    (work / "README.md").write_text("calc\n", encoding="utf-8")
    (work / "run.sh").write_text("#!/bin/sh\necho broken\n", encoding="utf-8")
    (work / "run.sh").chmod(0o755)
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
    checkout = remote.clone(tmp_path / "clone", sha=sha, branch="main")
    assert git(checkout, "rev-parse", "HEAD").strip() == sha
    assert (checkout / "calc.py").read_text(encoding="utf-8") == "def inc(x):\n    return x + 2\n"
    assert not list((checkout / ".git").rglob("*.sample"))  # no template hooks copied in
    config = (checkout / ".git" / "config").read_text(encoding="utf-8")
    assert TOKEN not in config and "extraheader" not in config

    with remote.stage(tmp_path, base=sha) as stage:
        assert stage.folder.parent == tmp_path and stage.folder != checkout
        new = stage.commit({"calc.py": "def inc(x):\n    return x + 1\n"}, "fix inc", Identity())
        assert stage.remote_branch("selfheal/abc") is None
        stage.push(new.sha, "selfheal/abc", expected=None)
        assert git(tmp_path, "--git-dir", str(bare), "rev-parse", "selfheal/abc").strip() == new.sha
        assert stage.remote_branch("selfheal/abc") == RemoteCommit(new.sha, new.tree, (sha,))
        assert TOKEN not in all_text_under(stage.folder)
    assert not stage.folder.exists()
    author = git(tmp_path, "--git-dir", str(bare), "log", "-1", "--format=%an <%ae>", "selfheal/abc").strip()
    assert author == "selfheal[bot] <selfheal[bot]@users.noreply.github.com>"
    assert (
        git(tmp_path, "--git-dir", str(bare), "log", "-1", "--format=%B", "selfheal/abc").strip() == "fix inc"
    )
    assert not [r for r in server.requests() if r["token_in_url"]]


def test_the_commit_is_the_base_tree_plus_the_files_nothing_else(fake, tmp_path: Path) -> None:
    server, bare, sha = fake
    remote = Remote(server.git_url("acme/calc"), TOKEN)
    files = {
        "calc.py": "def inc(x):\r\n    return x + 1\r\n",  # bytes as given: no line-ending conversion
        "run.sh": "#!/bin/sh\necho fixed\n",
        "tests/test_selfheal_inc.py": "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n",
    }
    with remote.stage(None, base=sha) as stage:
        built = stage.commit(files, "fix", Identity("Repair Bot", "bot@example.com"))
        stage.push(built.sha, "selfheal/t", expected=None)
    listing = git(tmp_path, "--git-dir", str(bare), "ls-tree", "-r", "selfheal/t")
    modes = {line.split("\t")[1]: line.split()[0] for line in listing.splitlines()}
    assert modes == {
        "README.md": "100644",
        "calc.py": "100644",
        "run.sh": "100755",  # executable in the base: stays so
        "tests/test_selfheal_inc.py": "100644",
    }
    changed = git(tmp_path, "--git-dir", str(bare), "diff", "--name-only", sha, "selfheal/t").split()
    assert changed == sorted(files)
    for path, text in files.items():
        shown = subprocess.run(
            ["git", "--git-dir", str(bare), "cat-file", "blob", f"selfheal/t:{path}"], capture_output=True
        ).stdout
        assert shown == text.encode()
    assert git(
        tmp_path, "--git-dir", str(bare), "log", "-1", "--format=%an <%ae>|%P", "selfheal/t"
    ).strip() == (f"Repair Bot <bot@example.com>|{sha}")


def test_paths_outside_the_tree_or_into_git_are_refused(fake) -> None:
    server, _bare, sha = fake
    remote = Remote(server.git_url("acme/calc"), TOKEN)
    with remote.stage(None, base=sha) as stage:
        for path in ("../x.py", "/etc/x.py", ".git/hooks/pre-push", "a/.GIT/config", "a//b.py", "./a.py", ""):
            with pytest.raises(GitError, match="is not a plain path inside the repository"):
                stage.commit({path: "x = 1\n"}, "m", Identity())
        with pytest.raises(GitError, match=r"would also change README\.md$"):
            stage.commit({"README.md/x.py": "x = 1\n"}, "m", Identity())


def test_a_lease_protects_a_branch_someone_else_moved(fake, tmp_path: Path) -> None:
    server, _bare, sha = fake
    remote = Remote(server.git_url("acme/calc"), TOKEN)
    with remote.stage(tmp_path, base=sha) as stage:
        first = stage.commit({"a.py": "A = 1\n"}, "a", Identity())
        stage.push(first.sha, "selfheal/x", expected=None)
        second = stage.commit({"b.py": "B = 1\n"}, "b", Identity())
        with pytest.raises(GitError, match="git push to selfheal/x failed"):
            stage.push(second.sha, "selfheal/x", expected=sha)  # not what the branch holds
        stage.push(second.sha, "selfheal/x", expected=first.sha)


def test_errors_name_the_step_and_never_the_token(fake, tmp_path: Path) -> None:
    server, _bare, sha = fake
    wrong = Remote(server.git_url("acme/calc"), "ghs_wrong_token_value")
    with pytest.raises(GitError) as caught:
        wrong.clone(tmp_path / "clone", sha=sha, branch="main")
    assert str(caught.value).startswith(f"git fetch of {sha[:12]} failed")
    assert "ghs_wrong_token_value" not in str(caught.value)
    with pytest.raises(GitError) as caught:
        wrong.stage(tmp_path, base=sha, branch="main")
    assert str(caught.value).startswith(f"git fetch of {sha[:12]} failed")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("selfheal-publish-")] == []
    with pytest.raises(GitError, match="carries credentials"):
        Remote("https://x-access-token:abc@github.com/acme/calc.git", TOKEN)
    with pytest.raises(GitError, match="is not http"):
        Remote("ssh://github.com/acme/calc.git", TOKEN)


def test_only_the_processes_that_talk_to_the_remote_get_the_token(fake, tmp_path: Path, monkeypatch) -> None:
    """Every git process selfheal starts, seen by a `git` first on PATH that logs and hands over."""
    server, _bare, sha = fake
    log = tmp_path / "calls.jsonl"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    real_git = shutil.which("git")
    wrapper.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"with open({str(log)!r}, 'a') as f:\n"
        "    f.write(json.dumps({'argv': sys.argv[1:], 'env': dict(os.environ)}) + '\\n')\n"
        f"os.execv({real_git!r}, [{real_git!r}, *sys.argv[1:]])\n",
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}:{os.environ['PATH']}")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    remote = Remote(server.git_url("acme/calc"), TOKEN)
    remote.clone(tmp_path / "clone", sha=sha, branch="main")
    with remote.stage(tmp_path, base=sha) as stage:
        built = stage.commit({"calc.py": "def inc(x):\n    return x + 1\n"}, "fix", Identity())
        stage.remote_branch("selfheal/w")
        stage.push(built.sha, "selfheal/w", expected=None)
        stage.remote_branch("selfheal/w")
    monkeypatch.undo()

    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    seen: dict[str, set[bool]] = {}
    for call in calls:
        argv, env = call["argv"], call["env"]
        settings = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-c"]
        assert {
            "core.hooksPath=/dev/null",
            "core.fsmonitor=false",
            "credential.helper=",
            "protocol.allow=never",
        } <= set(settings)
        assert env["GIT_CONFIG_NOSYSTEM"] == "1" and env["GIT_CONFIG_GLOBAL"] == os.devnull
        assert "GIT_DIR" not in env and "GITHUB_TOKEN" not in env
        command = next(a for a in argv if not a.startswith("-") and a not in settings)
        has_header = any(TOKEN in v or "extraheader" in v or "AUTHORIZATION" in v for v in env.values())
        seen.setdefault(command, set()).add(has_header)
    assert seen.pop("fetch") == seen.pop("ls-remote") == seen.pop("push") == {True}
    local = {"init", "checkout", "cat-file", "read-tree", "ls-tree", "hash-object", "update-index",
             "write-tree", "diff-tree", "commit-tree", "rev-parse"}  # fmt: skip
    assert set(seen) == local
    assert set().union(*seen.values()) == {False}


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
