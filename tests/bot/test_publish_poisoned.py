"""Publishing after a heal whose tests poisoned the checkout's .git: nothing planted runs.

The heal's checkout is poisoned every way tests/gitpoison.py knows (hooks of every kind, hooksPath,
fsmonitor, filter/diff/merge drivers with attributes in the tree and in info/, textconv, external
diff, credential helpers, sshCommand, askPass, pager, editor, gpg signing, include.path, url
rewrites to a local remote with its own receive-pack). The host's own git setup is poisoned too
(HOME's .gitconfig, XDG config, GIT_* variables), and the stage is made inside the poisoned work
tree, where a git that looked for its repository would find the poisoned one. Then the real
publishing code runs against the fake GitHub.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from selfheal.bot.github.client import GitHubClient
from selfheal.bot.github.gitops import Identity, Remote
from selfheal.bot.github.publish import CREATED, NONE, UPDATED, Change, publish_pull
from tests import gitpoison
from tests.conftest import git
from tests.fakes.github_server import FakeGitHub

TOKEN = "ghs_" + "7" * 36
REPO = "acme/calc"
FIXED = {
    "calc.py": "def inc(x):\n    return x + 1\n",
    "tests/test_selfheal_inc.py": "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n",
}


@pytest.fixture
def fake(tmp_path: Path):
    work = tmp_path / "seed"
    (work / "tests").mkdir(parents=True)
    (work / "calc.py").write_text("def inc(x):\n    return x + 2\n", encoding="utf-8")
    (work / "tests" / "test_calc.py").write_text(
        "from calc import inc\n\n\ndef test_inc():\n    assert inc(0) == 1\n", encoding="utf-8"
    )
    # the repository's own attributes name the drivers the tests will define
    (work / ".gitattributes").write_text(gitpoison.ATTRIBUTES, encoding="utf-8")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "seed")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(work, "push", "-q", str(remote), "main")
    state = {
        "token": TOKEN,
        "bot_login": "github-actions[bot]",
        "repos": [{"full_name": REPO, "default_branch": "main", "git_dir": str(remote)}],
    }
    server = FakeGitHub.start(tmp_path / "fake", state)
    yield server, remote, git(work, "rev-parse", "HEAD").strip()
    server.stop()


def proofs(proof: Path) -> list[str]:
    return sorted(p.name.split(".")[0] for p in proof.iterdir()) if proof.exists() else []


def poison_the_host(monkeypatch: pytest.MonkeyPatch, home: Path, checkout: Path, proof: Path) -> None:
    """What the host's environment could carry: selfheal must not read any of it."""
    (home / ".config" / "git").mkdir(parents=True)
    host_config = (
        "[core]\n"
        f'\tfsmonitor = "{gitpoison.proof_command(proof, "host-fsmonitor", "exit 1")}"\n'
        f'\tpager = "{gitpoison.proof_command(proof, "host-pager", "cat")}"\n'
        f"[include]\n\tpath = {checkout / '.git' / 'config'}\n"
    )
    for path in (home / ".gitconfig", home / ".config" / "git" / "config", home / "global.config"):
        path.write_text(host_config, encoding="utf-8")
    (home / ".config" / "git" / "attributes").write_text(gitpoison.ATTRIBUTES, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "global.config"))
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(home / "global.config"))
    monkeypatch.setenv("GIT_DIR", str(checkout / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(checkout))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'include.path'='{checkout / '.git' / 'config'}'")
    for variable, kind in (
        ("GIT_SSH_COMMAND", "env-ssh-command"),
        ("GIT_EXTERNAL_DIFF", "env-external-diff"),
        ("GIT_EDITOR", "env-editor"),
        ("GIT_PAGER", "env-pager"),
        ("GIT_SEQUENCE_EDITOR", "env-sequence-editor"),
    ):
        monkeypatch.setenv(variable, gitpoison.proof_command(proof, kind))
    monkeypatch.setenv("GIT_ASKPASS", str(checkout / ".git" / "evil-bin" / "askpass"))
    monkeypatch.setenv("SSH_ASKPASS", str(checkout / ".git" / "evil-bin" / "askpass"))


def the_poison_is_live(checkout: Path, url: str, proof: Path, tmp_path: Path) -> list[str]:
    """Ordinary git in a copy of the poisoned checkout, as publishing used to work: what ran."""
    copy = tmp_path / "control"
    shutil.copytree(checkout, copy, symlinks=True)
    for config in (copy / ".git" / "config", copy / ".git" / "evil-included.config"):
        config.write_text(
            config.read_text(encoding="utf-8").replace(str(checkout), str(copy)), encoding="utf-8"
        )
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    (copy / "calc.py").write_text(FIXED["calc.py"], encoding="utf-8")
    for argv in (
        ["git", "status"],
        ["git", "add", "calc.py"],
        ["git", "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-m", "fix"],
        ["git", "remote", "add", "origin", url],
        ["git", "push", "origin", "HEAD:refs/heads/control"],
    ):
        subprocess.run(argv, cwd=copy, env=env, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    ran = proofs(proof)
    shutil.rmtree(proof)
    proof.mkdir()
    return ran


def test_publishing_runs_nothing_the_heals_tests_planted(fake, tmp_path: Path, monkeypatch) -> None:
    server, bare, base = fake
    url = server.git_url(REPO)
    remote = Remote(url, TOKEN)
    checkout = remote.clone(tmp_path / "heal" / "repo", sha=base, branch="main")
    proof = tmp_path / "proof"
    proof.mkdir()
    gitpoison.plant(checkout / ".git", proof, checkout)

    ran = set(the_poison_is_live(checkout, url, proof, tmp_path))
    assert {
        "core-fsmonitor",
        "filter-clean",
        "hookspath-pre-commit",
        "hookspath-commit-msg",
        "hookspath-post-index-change",
        "gpg-program",
    } <= ran, ran
    assert "include-receivepack" in ran  # the push went to the planted "remote" instead

    poison_the_host(monkeypatch, tmp_path / "home", checkout, proof)
    client = GitHubClient(REPO, TOKEN, api_url=server.api_url, write_interval=0)
    change = Change(
        files=FIXED,
        title="selfheal: fix `inc` in calc.py",
        message="selfheal: fix inc in calc.py\n\nRoot cause: off by one",
        body="the fix",
        signature="abc123",
        branch="selfheal/abc123",
        base_branch="main",
        base_sha=base,
        draft=False,
    )
    operations = []
    # the stage is made inside the poisoned work tree: a git looking for its repository upward
    # from there would find the poisoned one
    for files in (FIXED, FIXED, {**FIXED, "calc.py": "def inc(x):\n    return 1 + x\n"}):
        with remote.stage(checkout, base=base, branch="main") as stage:
            assert stage.folder.parent == checkout
            publication = publish_pull(client, stage, Change(**{**change.__dict__, "files": files}),
                                       Identity(), reviewer=None)  # fmt: skip
            operations.append(publication.operation)
            assert publication.pr_number is not None
    monkeypatch.undo()

    assert proofs(proof) == []
    assert operations == [CREATED, NONE, UPDATED]
    branch = "selfheal/abc123"
    assert git(tmp_path, "--git-dir", str(bare), "rev-parse", f"{branch}^").strip() == base
    changed = git(tmp_path, "--git-dir", str(bare), "diff", "--name-only", base, branch).split()
    assert changed == sorted(FIXED)
    base_tree = git(tmp_path, "--git-dir", str(bare), "ls-tree", "-r", base).splitlines()
    pushed_tree = git(tmp_path, "--git-dir", str(bare), "ls-tree", "-r", branch).splitlines()
    untouched = [line for line in base_tree if line.split("\t")[1] not in FIXED]
    assert sorted(line for line in pushed_tree if line.split("\t")[1] not in FIXED) == sorted(untouched)
    shown = subprocess.run(
        ["git", "--git-dir", str(bare), "cat-file", "blob", f"{branch}:calc.py"],
        capture_output=True,
        check=True,
    )
    assert shown.stdout == b"def inc(x):\n    return 1 + x\n"  # bytes as given: no clean filter ran
    assert "control" not in git(tmp_path, "--git-dir", str(bare), "branch", "--list")
    assert not [r for r in server.requests() if r["token_in_url"]]
