"""The Action's memory, end to end against the fake GitHub: the `selfheal-memory` branch is
created by the first heal and appended by the next, which recalls the first in its pull request
and report; a fork's heal and a heal with `memory: off` write nothing; the token is never in it."""

from __future__ import annotations

import json

from selfheal.bot.memorybranch import MEMORY_BRANCH
from tests.action.conftest import REPO, World
from tests.action.test_action_e2e import assert_no_token_anywhere, pulls_by_head, remote_branches
from tests.bot import payloads
from tests.conftest import git


def memory_log(world: World) -> list[str]:
    """Parents of each commit on the memory branch, newest first."""
    return git(world.tmp, "--git-dir", str(world.remote), "log", "--format=%P", MEMORY_BRANCH).splitlines()


def memory_records(world: World) -> list[dict]:
    text = git(world.tmp, "--git-dir", str(world.remote), "show", f"{MEMORY_BRANCH}:memory.jsonl")
    return [json.loads(line) for line in text.splitlines()]


def test_the_first_heal_creates_the_branch_and_the_next_recalls_and_appends(world: World) -> None:
    red = world.run("workflow_run", payloads.workflow_run(conclusion="failure", head_sha=world.shas["main"]))
    assert (red.returncode, red.outputs["status"]) == (0, "healed"), red.stderr
    assert MEMORY_BRANCH in remote_branches(world)
    assert memory_log(world) == [""]  # one commit, with no parent: an orphan branch
    [first] = memory_records(world)
    assert (first["status"], first["families"], first["fix_sites"]) == (
        "healed", ["comparison-operator"], [["intervals/core.py", "merge"]],
    )  # fmt: skip
    assert first["recalled"] == []
    for branch in ("main", "feature", "green"):  # no branch of the code moved
        assert (
            git(world.tmp, "--git-dir", str(world.remote), "rev-parse", branch).strip() == world.shas[branch]
        )
    assert "report.html" in red.summary and "/actions/runs/31337#artifacts" in red.summary
    assert (red.report_dir / "report.html").is_file()

    world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")
    again = world.run("issue_comment", payloads.issue_comment("/heal", number=7, comment_id=5001))
    assert (again.returncode, again.outputs["status"]) == (0, "healed"), again.stderr
    assert len(memory_log(world)) == 2
    older, newer = memory_records(world)
    assert older["id"] == first["id"] and newer["recalled"] == [first["id"]]
    report = json.loads((again.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report["memory"]["store"] == f"branch {MEMORY_BRANCH}"
    assert [(r["id"], r["helped"]) for r in report["memory"]["recalled"]] == [(first["id"], True)]
    [pull] = pulls_by_head(world, again.outputs["branch"])
    assert "#### Recalled from earlier heals of this repository" in pull["body"]
    assert f"- `{first['id']}` (" in pull["body"]
    branch_text = git(world.tmp, "--git-dir", str(world.remote), "show", f"{MEMORY_BRANCH}:memory.jsonl")
    assert world.token not in branch_text
    assert_no_token_anywhere(world, red, again)


def test_a_fork_and_memory_off_write_nothing(world: World) -> None:
    world.fake.seed_comment(REPO, 8, 6002, "alice", "/heal")
    fork = world.run(
        "issue_comment", payloads.issue_comment("/heal", login="alice", number=8, comment_id=6002)
    )
    assert fork.outputs["status"] == "refused"
    off = world.run(
        "workflow_run", payloads.workflow_run(conclusion="failure", head_sha=world.shas["main"]), memory="off"
    )
    assert (off.returncode, off.outputs["status"]) == (0, "healed"), off.stderr
    assert MEMORY_BRANCH not in remote_branches(world)
    report = json.loads((off.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report["memory"] == {"version": 1, "store": "off", "recalled": []}
