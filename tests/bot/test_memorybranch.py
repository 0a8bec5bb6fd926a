"""The memory branch against the fake GitHub's smart-HTTP remote, with real git: created as an
orphan on the first heal, appended on the next, both records kept when two heals push at once,
no other branch touched, the token nowhere in it."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from selfheal.bot.github.gitops import Remote
from selfheal.bot.github.memorybranch import MEMORY_BRANCH, MemoryBranch
from tests.agent.report.test_memory import record
from tests.bot.test_gitops import TOKEN
from tests.bot.test_gitops import fake as fake
from tests.conftest import git


def branch_log(bare: Path) -> list[tuple[str, str]]:
    """(parents, subject) of each commit on the memory branch, newest first."""
    out = git(bare.parent, "--git-dir", str(bare), "log", "--format=%P|%s", MEMORY_BRANCH)
    return [tuple(line.split("|", 1)) for line in out.splitlines()]  # type: ignore[misc]


def branch_file(bare: Path) -> str:
    return git(bare.parent, "--git-dir", str(bare), "show", f"{MEMORY_BRANCH}:memory.jsonl")


def test_created_as_an_orphan_then_appended_and_no_other_branch_moves(fake, tmp_path: Path) -> None:
    server, bare, main_sha = fake
    branch = MemoryBranch(Remote(server.git_url("acme/calc"), TOKEN), parent=tmp_path)
    assert branch.read() == []
    first = branch.append(record("aaa111"))
    assert branch_log(bare) == [("", "selfheal memory: healed aaa111")]  # no parent: an orphan
    second = branch.append(record("bbb222", recalled=("aaa111",)))
    assert branch_log(bare) == [
        (first, "selfheal memory: healed bbb222"),
        ("", "selfheal memory: healed aaa111"),
    ]
    assert [r.id for r in branch.read()] == ["aaa111", "bbb222"]
    assert git(tmp_path, "--git-dir", str(bare), "rev-parse", MEMORY_BRANCH).strip() == second
    heads = git(
        tmp_path, "--git-dir", str(bare), "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"
    )
    assert sorted(heads.splitlines()) == sorted(
        [f"refs/heads/main {main_sha}", f"refs/heads/{MEMORY_BRANCH} {second}"]
    )
    tree = git(tmp_path, "--git-dir", str(bare), "ls-tree", "--name-only", MEMORY_BRANCH).split()
    assert tree == ["memory.jsonl"]  # nothing of the code: only the records
    assert not list(tmp_path.glob("selfheal-memory-*"))  # the scratch git directories are gone


def test_two_heals_appending_at_once_both_keep_their_record(fake, tmp_path: Path) -> None:
    server, bare, _ = fake
    errors: list[BaseException] = []

    def heal(prefix: str) -> None:
        branch = MemoryBranch(Remote(server.git_url("acme/calc"), TOKEN), parent=tmp_path)
        try:
            for n in range(3):
                branch.append(record(f"{prefix}{n}"))
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=heal, args=(prefix,)) for prefix in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    ids = sorted(json.loads(line)["id"] for line in branch_file(bare).splitlines())
    assert ids == ["a0", "a1", "a2", "b0", "b1", "b2"]
    assert len(branch_log(bare)) == 6  # one commit per heal


def test_the_token_never_reaches_the_branch_or_a_url(fake, tmp_path: Path) -> None:
    server, bare, _ = fake
    branch = MemoryBranch(Remote(server.git_url("acme/calc"), TOKEN), parent=tmp_path)
    branch.append(record("ccc333", messages=(f"AssertionError: got {TOKEN}",), root_cause=f"token {TOKEN}"))
    text = branch_file(bare)
    assert TOKEN not in text
    assert json.loads(text)["messages"][0].startswith("AssertionError: got ")
    assert not [r for r in server.requests() if r["token_in_url"]]


def test_selfheal_memory_lists_shows_and_forgets_on_the_branch(
    fake, tmp_path: Path, monkeypatch, capsys
) -> None:
    from selfheal.cli import main

    server, bare, _ = fake
    branch = MemoryBranch(Remote(server.git_url("acme/calc"), TOKEN), parent=tmp_path)
    branch.append(record("aaa111"))
    branch.append(record("bbb222", recalled=("aaa111",)))
    monkeypatch.setenv("MEMORY_TEST_TOKEN", TOKEN)
    where = ["--github", "acme/calc", "--server", server.url, "--token-env", "MEMORY_TEST_TOKEN"]

    assert main(["memory", "list", *where]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["aaa111", "bbb222"]
    assert lines[0].endswith("(recalled 1x)")
    assert main(["memory", "show", "bbb", *where]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "bbb222"
    assert main(["memory", "forget", "aaa", *where]) == 0
    assert capsys.readouterr().out == f"forgot aaa111 in acme/calc:{MEMORY_BRANCH}\n"
    assert [json.loads(line)["id"] for line in branch_file(bare).splitlines()] == ["bbb222"]
    assert branch_log(bare)[0][1] == "selfheal memory: forget aaa111"
    assert branch.forget("zzz") is None  # no such record: no empty commit
    assert len(branch_log(bare)) == 3
    monkeypatch.delenv("MEMORY_TEST_TOKEN")
    assert main(["memory", "list", *where]) == 2
    assert "needs a token in $MEMORY_TEST_TOKEN" in capsys.readouterr().err
    assert not [r for r in server.requests() if r["token_in_url"]]
