"""GitHub's floor: the repository's code never runs next to the token uncontained, unless asked.

`selfheal action` run as a normal user on a runner without bubblewrap (a PATH without it), with
the local sandbox: the tests would run as selfheal's own user with nothing in between (they could
read the token from selfheal's memory). So the heal is refused before any of the repository's code
runs, and the requester reads why and how to fix it in the comment and the job summary. With the
input accept-unsafe-sandbox the workflow takes the risk and the heal runs. As root the sandbox
would run the tests as an unprivileged uid, but without namespaces they would still reach the
network: refused too, unless the workflow accepts it. The
repository's own `namespaces = false` changes none of this: the caller's choice, not its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
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
from tests.conftest import EXAMPLES, ReportSweep
from tests.fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow
BOT = "github-actions[bot]"


# Without namespaces the sandbox still allows no write outside the workspace (Landlock), so the
# repository's code announces itself over an abstract Unix socket, which also tells its uid.
WITNESS_CALL = """import socket
try:
    with socket.socket(socket.AF_UNIX) as witness:
        witness.connect("\\0{name}")
        witness.sendall(b"ran")
except OSError:
    pass
"""


class Witness:
    """Counts the processes of the repository's code that reach it, by uid (SO_PEERCRED)."""

    def __init__(self, name: str, server: socket.socket) -> None:
        self.name, self._server, self._uids = name, server, []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @classmethod
    def start(cls) -> Witness:
        name = f"selfheal-floor-{os.urandom(6).hex()}"
        server = socket.socket(socket.AF_UNIX)
        server.bind("\0" + name)
        server.listen(64)
        witness = cls(name, server)
        witness._thread.start()
        return witness

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            with conn:
                creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
                self._uids.append(struct.unpack("3i", creds)[1])

    def callers(self) -> list[int]:
        return list(self._uids)

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()


@dataclass
class Floor:
    base: Path
    world: World
    proof: Witness  # the repository's conftest calls it whenever its code runs

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
def floor(report_sweep: ReportSweep) -> Iterator[Floor]:
    base = Path(tempfile.mkdtemp(prefix="selfheal-floor-")).resolve()
    base.chmod(0o755)
    proof = Witness.start()
    seed = base / "seed"
    shutil.copytree(EXAMPLES / "intervals", seed, ignore=shutil.ignore_patterns(".selfheal", "__pycache__"))
    (seed / "conftest.py").write_text(WITNESS_CALL.format(name=proof.name), "utf-8")
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
        proof.stop()
        report_sweep.sweep(base)  # outside basetemp (another uid enters it): before it goes
        shutil.rmtree(base, ignore_errors=True)


def bot_comments(world: World) -> list[str]:
    repo = next(r for r in world.fake.state()["repos"] if r["full_name"] == REPO)
    return [c["body"] for c in repo["comments"] if c["issue_number"] == 3 and c["user"]["login"] == BOT]


def test_as_a_normal_user_without_namespaces_the_heal_is_refused_before_any_repository_code_runs(
    floor: Floor,
) -> None:
    runner = runner_for("user", "local", floor.base)
    done, work = floor.run(runner, "refused")

    assert floor.proof.callers() == []  # not one line of the repository's code ran
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
    assert floor.proof.callers()  # it ran, as the workflow asked
    report = json.loads((work / "workspace" / outputs["report-path"] / "report.json").read_text("utf-8"))
    facts = report["sandbox"]["facts"]
    assert facts["contained"] is False and facts["separate_user"] is False and facts["namespaces"] == []


def test_as_root_without_namespaces_the_heal_is_refused_unless_the_workflow_accepts_it(floor: Floor) -> None:
    # As root the tests would run as an unprivileged uid, but with the runner's network and its
    # shared folders: a runner (or a repository's image) that breaks bubblewrap must not buy a
    # quieter sandbox. Refused; with accept-unsafe-sandbox it runs, and the job summary says how.
    runner = runner_for("root", "local", floor.base)
    # the tests run on the Python running selfheal: as root it must be one another uid can reach
    open_runner = runner_for("user", "local", floor.base)
    done, work = floor.run(Runner(open_runner.python, None), "root")
    assert runner.uid is None
    assert floor.proof.callers() == []  # not one line of the repository's code ran
    assert parse_output_file(work / "output")["status"] == "error", done.stderr[-3000:]
    summary = (work / "summary.md").read_text("utf-8")
    assert "did not run the repository's code" in summary
    assert "cannot make its namespaces here" in summary and "accept-unsafe-sandbox" in summary

    done, work = floor.run(
        Runner(open_runner.python, None), "root-accepted", **{"accept-unsafe-sandbox": "true"}
    )
    outputs = parse_output_file(work / "output")
    assert outputs["status"] == "healed", done.stderr[-3000:]
    report = json.loads((work / "workspace" / outputs["report-path"] / "report.json").read_text("utf-8"))
    facts = report["sandbox"]["facts"]
    assert facts["namespaces"] == [] and facts["separate_user"] is True and facts["contained"] is True
    assert facts["uid"] != 0 and facts["capabilities"] == []
    ran_as = set(floor.proof.callers())
    assert ran_as == {facts["uid"]}  # every process of the repository's code was that uid
    summary = (work / "summary.md").read_text("utf-8")
    assert f"**Sandbox:** local: uid {facts['uid']}, not selfheal's user" in summary
    assert "Landlock" in summary  # what stood in for the namespaces
