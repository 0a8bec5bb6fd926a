"""Publishing through GitHub's Git Data API (blobs, tree, commit, ref) against the fake GitHub:
the same outcomes as the git stage, with no git process near the token."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from selfheal.bot.events import parse_event
from selfheal.bot.exceptions import GitError
from selfheal.bot.github.client import GitHubClient
from selfheal.bot.github.gitdata import ApiStage
from selfheal.bot.github.gitops import Identity
from selfheal.bot.github.publish import CREATED, NONE, UPDATED, Change, publish_pull
from selfheal.bot.service import Bot
from selfheal.bot.settings import BotSettings
from tests.action.conftest import REPO, seed_remote
from tests.bot import payloads
from tests.conftest import git
from tests.fakes.github_server import FakeGitHub

TOKEN = "ghs_" + "5" * 36


@pytest.fixture
def fake(tmp_path: Path):
    work = tmp_path / "seed"
    (work / "bin").mkdir(parents=True)
    (work / "calc.py").write_text("def inc(x):\n    return x + 2\n", encoding="utf-8")
    (work / "bin" / "run").write_text("#!/bin/sh\necho broken\n", encoding="utf-8")
    (work / "bin" / "run").chmod(0o755)
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


def change(base: str, files: dict[str, str]) -> Change:
    return Change(files=files, title="selfheal: fix", message="selfheal: fix inc\n\nRoot cause: +2",
                  body="the fix", signature="s1", branch="selfheal/s1", base_branch="main", base_sha=base,
                  draft=False)  # fmt: skip


def test_the_api_publishes_base_plus_the_files_and_runs_no_git(fake, tmp_path: Path) -> None:
    server, bare, base = fake
    client = GitHubClient("acme/calc", TOKEN, api_url=server.api_url, write_interval=0)
    fixed = {
        "calc.py": "def inc(x):\r\n    return x + 1\r\n",
        "bin/run": "#!/bin/sh\necho fixed\n",
        "tests/test_selfheal_inc.py": "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n",
    }
    operations = []
    for files in (fixed, fixed, {**fixed, "calc.py": "def inc(x):\n    return 1 + x\n"}):
        with ApiStage(client, base) as stage:
            operations.append(
                publish_pull(client, stage, change(base, files), Identity(), reviewer=None).operation
            )
    assert operations == [CREATED, NONE, UPDATED]
    assert [r for r in server.requests() if r["kind"] == "git"] == []  # not one git request

    changed = git(
        tmp_path, "--git-dir", str(bare), "diff", "--name-only", "--no-renames", base, "selfheal/s1"
    )
    assert changed.split() == sorted(fixed)
    listing = git(tmp_path, "--git-dir", str(bare), "ls-tree", "-r", "selfheal/s1").splitlines()
    modes = {line.split("\t")[1]: line.split()[0] for line in listing}
    assert modes == {"bin/run": "100755", "calc.py": "100644", "tests/test_selfheal_inc.py": "100644"}
    shown = subprocess.run(["git", "--git-dir", str(bare), "cat-file", "blob", "selfheal/s1:calc.py"],
                           capture_output=True, check=True)  # fmt: skip
    assert shown.stdout == b"def inc(x):\n    return 1 + x\n"
    log = git(tmp_path, "--git-dir", str(bare), "log", "-1", "--format=%an <%ae>|%cn|%P|%s", "selfheal/s1")
    assert (
        log.strip()
        == f"selfheal[bot] <selfheal[bot]@users.noreply.github.com>|selfheal[bot]|{base}|selfheal: fix inc"
    )


def test_the_api_refuses_what_the_git_stage_refuses(fake, tmp_path: Path) -> None:
    server, _bare, base = fake
    client = GitHubClient("acme/calc", TOKEN, api_url=server.api_url, write_interval=0)
    with ApiStage(client, base) as stage:
        for path in ("../x.py", ".git/config", "a//b.py"):
            with pytest.raises(GitError, match="is not a plain path inside the repository"):
                stage.commit({path: "x = 1\n"}, "m", Identity())
        with pytest.raises(GitError, match=r"calc\.py/x\.py goes through calc\.py,"):
            stage.commit({"calc.py/x.py": "x = 1\n"}, "m", Identity())
        with pytest.raises(GitError, match="bin is not a regular file"):
            stage.commit({"bin": "x = 1\n"}, "m", Identity())
        first = stage.commit({"a.py": "A = 1\n"}, "a", Identity())
        stage.push(first.sha, "selfheal/x", expected=None)
        second = stage.commit({"b.py": "B = 1\n"}, "b", Identity())
        with pytest.raises(GitError, match="git push to selfheal/x failed: the branch moved"):
            stage.push(second.sha, "selfheal/x", expected=None)  # someone made it meanwhile
        stage.push(second.sha, "selfheal/x", expected=first.sha)
    assert client.branch_sha("selfheal/x") == second.sha


def test_a_bot_set_to_the_api_heals_and_opens_the_pull_request_without_pushing(tmp_path: Path) -> None:
    remote, shas = seed_remote(tmp_path)
    state = {"token": TOKEN, "bot_login": "github-actions[bot]",
             "repos": [{"full_name": REPO, "default_branch": "main", "git_dir": str(remote)}]}  # fmt: skip
    with FakeGitHub.start(tmp_path / "fake", state) as server:
        client = GitHubClient(REPO, TOKEN, api_url=server.api_url, write_interval=0)
        settings = BotSettings(publish_with="api", workdir=tmp_path, out_dir=tmp_path / "out",
                               heal_flags={"sandbox": "local", "max_minutes": 5})  # fmt: skip
        trigger = parse_event(
            "workflow_run", payloads.workflow_run(conclusion="failure", head_sha=shas["main"])
        )
        outcome = Bot(client, TOKEN, settings).handle(trigger)
        assert outcome.status == "healed", outcome.message
        assert outcome.publication is not None and outcome.publication.operation == CREATED
        git_requests = [r for r in server.requests() if r["kind"] == "git"]
        # the clone the heal started from fetched; nothing was pushed
        assert git_requests and not [r for r in git_requests if "receive-pack" in r["path"]]
        branch = outcome.publication.branch
        changed = git(tmp_path, "--git-dir", str(remote), "diff", "--name-only", shas["main"], branch).split()
        assert changed[0] == "intervals/core.py" and all("selfheal" in p for p in changed[1:]), changed
