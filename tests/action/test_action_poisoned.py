"""Git poisoning, end to end: a repository whose conftest.py poisons every git directory it can
reach (tests/gitpoison.py: walking up from its working directory, the runner's folders if it sees
them, /tmp, and its own workspace), whose tests otherwise fail on the intervals example's boundary
bug, healed through `selfheal action` against the fake GitHub — for each sandbox backend this
machine offers, as root and as a normal user.

Afterwards nothing planted has run (no proof file), the pull request exists, and the pushed commit
holds only the patch and the new tests. Whatever the sandbox let the tests reach is poisoned: with
namespaces or in a container that may be only their own copy, which is the sandbox doing its job;
`selfheal heal --no-namespaces` (the action has no such input) shows the heal-level part where the
tests reach every folder of the machine that their uid may write.

Everything lives in one world-readable folder (the pytest tmp folder is not reachable by another
uid), and the runs get TMPDIR inside it, so the hostile code is told to poison only that folder:
the machine is shared, other people's repositories in /tmp are not ours to poison.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import gitpoison
from tests.action.conftest import REPO, World, parse_output_file, path_without, push_to_new_remote, runner_env
from tests.bot import payloads
from tests.conftest import EXAMPLES, ReportSweep, git
from tests.fakes.github_server import FakeGitHub
from tests.openpython import make_open_python
from tests.sandbox.test_docker_sandbox import CLIENT, IMAGE, REASON

pytestmark = pytest.mark.slow

ROOT_ONLY = "running as root and switching uid needs root; the tests run as a normal user here"
DOCKER_SOCKET = Path("/var/run/docker.sock")


@dataclass
class Hostile:
    base: Path
    world: World
    sha: str
    proof: Path
    planted: Path

    def proofs(self) -> list[str]:
        return sorted(p.name for p in self.proof.iterdir())

    def planted_dirs(self) -> list[str]:
        return sorted({line for p in self.planted.iterdir() for line in p.read_text().splitlines()})


def unused_uid() -> int:
    taken = {entry.pw_uid for entry in pwd.getpwall()}
    return next(uid for uid in range(23000, 60000) if uid not in taken)


def open_folder(path: Path, mode: int = 0o755) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(mode)
    return path


@pytest.fixture
def hostile(report_sweep: ReportSweep) -> Iterator[Hostile]:
    base = Path(tempfile.mkdtemp(prefix="selfheal-poison-")).resolve()
    base.chmod(0o755)
    proof, planted = open_folder(base / "proof", 0o1777), open_folder(base / "planted", 0o1777)
    seed = base / "seed"
    shutil.copytree(EXAMPLES / "intervals", seed, ignore=shutil.ignore_patterns(".selfheal", "__pycache__"))
    (seed / "conftest.py").write_text(gitpoison.hostile_conftest(proof, base, planted), encoding="utf-8")
    remote = base / "remote.git"
    sha = push_to_new_remote(seed, remote, "intervals, with a conftest that poisons git")
    token = "ghs_" + os.urandom(16).hex()
    state = {
        "token": token,
        "bot_login": "github-actions[bot]",
        "repos": [{"full_name": REPO, "default_branch": "main", "git_dir": str(remote)}],
    }
    fake = FakeGitHub.start(base / "fake", state)
    try:
        yield Hostile(base, World(base, remote, fake, token, {"main": sha}), sha, proof, planted)
    finally:
        fake.stop()
        report_sweep.sweep(base)  # outside basetemp (another uid enters it): before it goes
        shutil.rmtree(base, ignore_errors=True)


@dataclass(frozen=True)
class Runner:
    python: str
    uid: int | None
    groups: tuple[int, ...] = ()

    def preexec(self) -> Callable[[], None] | None:
        if self.uid is None:
            return None
        uid, groups = self.uid, self.groups

        def drop() -> None:
            os.setgroups(list(groups))
            os.setgid(uid)
            os.setuid(uid)

        return drop

    def own(self, *paths: Path) -> None:
        if self.uid is None:
            return
        for path in paths:
            for folder, dirs, files in os.walk(path):
                for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
                    os.lchown(name, self.uid, self.uid)


def runner_for(identity: str, backend: str, base: Path) -> Runner:
    if identity == "root":
        if os.geteuid() != 0:
            pytest.skip(ROOT_ONLY)
        return Runner(sys.executable, None)
    if os.geteuid() != 0:
        return Runner(sys.executable, None)  # already a normal user: run as ourselves
    python, why = make_open_python(base)
    if python is None:
        pytest.skip(f"no interpreter another uid can run: {why}")
    groups: tuple[int, ...] = ()
    if backend == "docker":
        # a normal user who may use the engine: a member of the socket's group
        if not DOCKER_SOCKET.exists() or DOCKER_SOCKET.stat().st_gid == 0:
            pytest.skip("the Docker socket has no group a normal user could be given")
        groups = (DOCKER_SOCKET.stat().st_gid,)
    return Runner(python, unused_uid(), groups)


def skip_unless_offered(backend: str) -> None:
    if backend == "docker" and CLIENT is None:
        pytest.skip(REASON)


def changed_files(hostile: Hostile, branch: str) -> list[str]:
    listed = git(hostile.base, "--git-dir", str(hostile.world.remote), "diff", "--name-only", "--no-renames",
                 hostile.sha, branch)  # fmt: skip
    return listed.split()


def only_patch_and_new_tests(paths: list[str]) -> bool:
    return "intervals/core.py" in paths and all(
        p == "intervals/core.py" or re.fullmatch(r"tests/[^/]*selfheal[^/]*\.py", p) for p in paths
    )


@pytest.mark.parametrize("identity", ["root", "user"])
@pytest.mark.parametrize("backend", ["local", "local-nons", "docker"])
def test_a_repository_that_poisons_every_git_it_reaches_gets_its_pull_request_and_nothing_runs(
    hostile: Hostile, backend: str, identity: str
) -> None:
    """local-nons: a runner without bubblewrap. GitHub's floor refuses a local sandbox without its
    namespaces unless the workflow accepts the risk — accepted here. As root the tests then run as
    an unprivileged uid under Landlock; as a normal user as selfheal's own user, so that they reach
    the very checkout the heal started from, and publishing must still run nothing they planted."""
    skip_unless_offered(backend)
    runner = runner_for(identity, backend, hostile.base)
    if backend == "local-nons" and runner.uid is None and os.geteuid() == 0:
        python, why = make_open_python(hostile.base)  # the sandbox's uid must reach the interpreter
        if python is None:
            pytest.skip(why)
        runner = Runner(python, None)
    work = open_folder(hostile.base / f"run-{backend}-{identity}")
    workspace, temp, tmpdir = work / "workspace", work / "runner_temp", work / "tmp"
    for folder in (workspace, temp, tmpdir):
        folder.mkdir()
    event = work / "event.json"
    event.write_text(json.dumps(payloads.workflow_run(conclusion="failure", head_sha=hostile.sha)), "utf-8")
    output, summary = work / "output", work / "summary.md"
    inputs = {"sandbox": backend.split("-")[0]}
    if backend == "docker":
        inputs["sandbox-image"] = IMAGE
    if backend == "local-nons":
        inputs["accept-unsafe-sandbox"] = "true"
    env = runner_env(hostile.world, "workflow_run", event, workspace, temp, output, summary, inputs)
    env["TMPDIR"] = str(tmpdir)  # the run's temporary folders inside the poisoned scope
    if backend == "local-nons":
        env["PATH"] = path_without(work / "bin", "bwrap")
    runner.own(work)
    done = subprocess.run(
        [runner.python, "-m", "selfheal", "action"],
        env=env, cwd=workspace, capture_output=True, text=True, timeout=900, preexec_fn=runner.preexec(),
    )  # fmt: skip
    outputs = parse_output_file(output)
    where = f"planted in: {hostile.planted_dirs()}\n{done.stderr[-3000:]}"

    assert hostile.proofs() == [], where
    assert done.returncode == 0, where
    assert output.stat().st_uid == (os.geteuid() if runner.uid is None else runner.uid)
    assert (outputs.get("status"), outputs.get("pr-operation")) == ("healed", "created"), where
    branch = outputs["branch"]
    pulls = [p for p in hostile.world.repo_state()["pulls"] if p["head"]["ref"] == branch]
    assert len(pulls) == 1 and pulls[0]["base"]["ref"] == "main"
    changed = changed_files(hostile, branch)
    assert only_patch_and_new_tests(changed), changed
    parent = git(hostile.base, "--git-dir", str(hostile.world.remote), "rev-parse", f"{branch}^").strip()
    assert parent == hostile.sha
    assert hostile.world.token not in done.stdout + done.stderr
    if backend == "local-nons":
        # Landlock in place of the namespaces: the tests wrote nothing outside their workspace,
        # not even the record of what they planted
        assert hostile.planted_dirs() == [], hostile.planted_dirs()
        assert "(Landlock)" in summary.read_text("utf-8")


@pytest.mark.parametrize("identity", ["root", "user"])
def test_without_namespaces_the_heal_runs_nothing_the_tests_planted(hostile: Hostile, identity: str) -> None:
    """`selfheal heal --no-namespaces` on a clone. As root with the risk accepted and a workspace no
    other uid can reach, the tests run as root beside selfheal and reach every folder of the machine
    (the clone's .git among them): the heal must still run nothing they planted. As a normal user,
    Landlock keeps them to their workspace: they plant nothing outside it."""
    runner = runner_for(identity, "local", hostile.base)
    work = open_folder(hostile.base / f"heal-{identity}")
    clone, tmpdir, out = work / "clone", work / "tmp", work / "out"
    git(hostile.base, "clone", "-q", str(hostile.world.remote), str(clone))
    tmpdir.mkdir(mode=0o700 if runner.uid is None else 0o755)  # as root: no sandbox uid reaches it
    runner.own(work)
    env = {"PATH": os.environ["PATH"], "HOME": str(work), "LANG": "C.UTF-8", "TMPDIR": str(tmpdir)}
    unsafe = ["--accept-unsafe-sandbox"] if runner.uid is None else []
    done = subprocess.run(
        [runner.python, "-m", "selfheal", "heal", "--no-namespaces", "--sandbox", "local", *unsafe,
         "--python", runner.python, "--max-minutes", "5", "--out", str(out), str(clone)],
        env=env, cwd=work, capture_output=True, text=True, timeout=900, preexec_fn=runner.preexec(),
    )  # fmt: skip
    where = f"planted in: {hostile.planted_dirs()}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"

    assert hostile.proofs() == [], where
    assert done.returncode == 0, where
    if runner.uid is None:
        assert hostile.planted_dirs(), where  # the hostile conftest ran as root and reached git directories
    else:
        assert hostile.planted_dirs() == [], where  # Landlock: nothing outside the workspace
        assert "(Landlock)" in (out / "report.json").read_text(encoding="utf-8")
    patch = (out / "patch.diff").read_text(encoding="utf-8")
    assert "intervals/core.py" in patch
