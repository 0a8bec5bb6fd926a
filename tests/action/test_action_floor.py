"""GitHub's floor: the repository's code never runs next to the token uncontained, unless asked.

`selfheal action` run as a normal user on a runner without bubblewrap (a PATH without it), with
the local sandbox: the tests would run as selfheal's own user with nothing in between (they could
read the token from selfheal's memory). So the heal is refused before any of the repository's code
runs, and the requester reads why and how to fix it in the comment and the job summary. With the
input accept-unsafe-sandbox the workflow takes the risk and the heal runs. As root, the same
repository is healed with no input: the sandbox runs the tests as an unprivileged uid. The
repository's own `namespaces = false` changes none of this: the caller's choice, not its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.action.conftest import (
    COLLABORATORS,
    REPO,
    World,
    parse_output_file,
    path_without,
    push_to_new_remote,
    runner_env,
)
from tests.action.test_action_poisoned import Runner, open_folder, runner_for
from tests.bot import payloads
from tests.conftest import EXAMPLES
from tests.fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow
BOT = "github-actions[bot]"


@dataclass
class Floor:
    base: Path
    world: World
    proof: Path  # the repository's conftest writes here whenever its code runs

    def run(self, runner: Runner, name: str, **inputs: str) -> tuple[subprocess.CompletedProcess[str], Path]:
        work = open_folder(self.base / name)
        workspace, temp = work / "workspace", work / "runner_temp"
        workspace.mkdir()
        temp.mkdir()
        event = work / "event.json"
        event.write_text(
            json.dumps(payloads.issue_comment("/heal", number=3, comment_id=5001, pull_request=False)),
            "utf-8",
        )
        output, summary = work / "output", work / "summary.md"
        env = runner_env(self.world, "issue_comment", event, workspace, temp, output, summary,
                         {"sandbox": "local", **inputs})  # fmt: skip
        env["TMPDIR"] = str(temp)
        env["PATH"] = path_without(work / "bin", "bwrap")
        runner.own(work)
        done = subprocess.run(
            [runner.python, "-m", "selfheal", "action"],
            env=env, cwd=workspace, capture_output=True, text=True, timeout=900, preexec_fn=runner.preexec(),
        )  # fmt: skip
        return done, work


@pytest.fixture
def floor() -> Iterator[Floor]:
    base = Path(tempfile.mkdtemp(prefix="selfheal-floor-")).resolve()
    base.chmod(0o755)
    proof = open_folder(base / "proof", 0o1777)
    seed = base / "seed"
    shutil.copytree(EXAMPLES / "intervals", seed, ignore=shutil.ignore_patterns(".selfheal", "__pycache__"))
    (seed / "conftest.py").write_text(
        f"import os\nopen(os.path.join({str(proof)!r}, 'ran-%d' % os.getpid()), 'w').close()\n", "utf-8"
    )
    pyproject = seed / "pyproject.toml"
    pyproject.write_text(pyproject.read_text("utf-8") + "\n[tool.selfheal]\nnamespaces = false\n", "utf-8")
    remote = base / "remote.git"
    push_to_new_remote(seed, remote, "intervals, namespaces off")
    token = "ghs_" + os.urandom(16).hex()
    state = {
        "token": token,
        "bot_login": BOT,
        "repos": [{
            "full_name": REPO, "default_branch": "main", "git_dir": str(remote),
            "collaborators": COLLABORATORS,
            "issues": [{"number": 3, "title": "merge drops touching intervals", "body": "", "user": "alice"}],
        }],
    }  # fmt: skip
    fake = FakeGitHub.start(base / "fake", state)
    fake.seed_comment(REPO, 3, 5001, "alice", "/heal")
    try:
        yield Floor(base, World(base, remote, fake, token), proof)
    finally:
        fake.stop()
        shutil.rmtree(base, ignore_errors=True)


def bot_comments(world: World) -> list[str]:
    repo = next(r for r in world.fake.state()["repos"] if r["full_name"] == REPO)
    return [c["body"] for c in repo["comments"] if c["issue_number"] == 3 and c["user"]["login"] == BOT]


def test_as_a_normal_user_without_namespaces_the_heal_is_refused_before_any_repository_code_runs(
    floor: Floor,
) -> None:
    runner = runner_for("user", "local", floor.base)
    done, work = floor.run(runner, "refused")

    assert list(floor.proof.iterdir()) == []  # not one line of the repository's code ran
    assert done.returncode == 1, done.stderr[-3000:]
    assert parse_output_file(work / "output")["status"] == "error"
    summary = (work / "summary.md").read_text("utf-8")
    for text in (summary, "\n".join(bot_comments(floor.world))):
        assert "did not run the repository's code" in text, text
        assert "keeps it away from the token" in text
        assert "accept-unsafe-sandbox" in text  # how to take the risk, if the workflow wants to
        assert "docker" in text  # and how to avoid it
    assert len(next(r for r in floor.world.fake.state()["repos"] if r["full_name"] == REPO)["pulls"]) == 0


def test_accept_unsafe_sandbox_runs_it_anyway_and_the_report_says_what_held(floor: Floor) -> None:
    runner = runner_for("user", "local", floor.base)
    done, work = floor.run(runner, "accepted", **{"accept-unsafe-sandbox": "true"})

    outputs = parse_output_file(work / "output")
    assert outputs["status"] == "healed", done.stderr[-3000:]
    assert list(floor.proof.iterdir())  # it ran, as the workflow asked
    report = json.loads((work / "workspace" / outputs["report-path"] / "report.json").read_text("utf-8"))
    facts = report["sandbox"]["facts"]
    assert facts["contained"] is False and facts["separate_user"] is False and facts["namespaces"] == []


def test_as_root_the_same_repository_is_healed_by_an_unprivileged_uid(floor: Floor) -> None:
    runner = runner_for("root", "local", floor.base)
    # the tests run on the Python running selfheal: as root it must be one another uid can reach
    open_runner = runner_for("user", "local", floor.base)
    done, work = floor.run(Runner(open_runner.python, None), "root")

    outputs = parse_output_file(work / "output")
    assert outputs["status"] == "healed", done.stderr[-3000:]
    assert runner.uid is None
    report = json.loads((work / "workspace" / outputs["report-path"] / "report.json").read_text("utf-8"))
    facts = report["sandbox"]["facts"]
    assert facts["namespaces"] == [] and facts["separate_user"] is True and facts["contained"] is True
    assert facts["uid"] != 0 and facts["capabilities"] == []
    ran_as = {p.stat().st_uid for p in floor.proof.iterdir()}
    assert ran_as == {facts["uid"]}  # every file the repository's code made belongs to that uid
