"""An end-to-end world for the action: a bare git remote, the fake GitHub server in its own
process, recorded event payloads, and `selfheal action` run as the runner runs it (a process with
the runner's environment). Nothing of ours is patched."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, ROOT, git
from tests.fakes.github_server import FakeGitHub

REPO = "acme/widgets"
COLLABORATORS = {"alice": "write", "bob": "read", "carol": "admin", "maint": "maintain"}
FIXED_LINE = (
    "if merged and current.start < merged[-1].end:",
    "if merged and current.start <= merged[-1].end:",
)


@dataclass
class ActionRun:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    workspace: Path

    @property
    def report_dir(self) -> Path | None:
        path = self.outputs.get("report-path")
        return (self.workspace / path) if path else None


@dataclass
class World:
    tmp: Path
    remote: Path
    fake: FakeGitHub
    token: str
    shas: dict[str, str] = field(default_factory=dict)
    runs: int = 0

    def run(
        self,
        event_name: str,
        payload: dict[str, Any],
        *,
        python: str = sys.executable,
        path: str | None = None,
        env: dict[str, str] | None = None,
        **inputs: str,
    ) -> ActionRun:
        """`python` runs selfheal; `path`, if given, is the runner's PATH; `env`, variables the
        workflow's `env:` would add to the step."""
        self.runs += 1
        work = self.tmp / f"run{self.runs}"
        workspace, temp = work / "workspace", work / "runner_temp"
        workspace.mkdir(parents=True)
        temp.mkdir()
        event = work / "event.json"
        event.write_text(json.dumps(payload), encoding="utf-8")
        output, summary = work / "output", work / "summary.md"
        step_env = env or {}
        env = runner_env(self, event_name, event, workspace, temp, output, summary, inputs)
        env.update(step_env)
        if path is not None:
            env["PATH"] = path
        done = subprocess.run(
            [python, "-m", "selfheal", "action"],
            env=env, capture_output=True, text=True, timeout=600, cwd=workspace,
        )  # fmt: skip
        return ActionRun(
            done.returncode,
            done.stdout,
            done.stderr,
            parse_output_file(output),
            summary.read_text(encoding="utf-8") if summary.exists() else "",
            workspace,
        )

    def state(self) -> dict[str, Any]:
        return self.fake.state()

    def repo_state(self) -> dict[str, Any]:
        return next(r for r in self.state()["repos"] if r["full_name"] == REPO)


def runner_env(
    world: World,
    event_name: str,
    event: Path,
    workspace: Path,
    temp: Path,
    output: Path,
    summary: Path,
    inputs: dict[str, str],
) -> dict[str, str]:
    """What the runner gives a container action: GITHUB_* variables and INPUT_<NAME> with dashes kept."""
    env = {
        "PATH": os.environ["PATH"],
        # the selfheal of this checkout, also where the installed package is another checkout's
        # (a git worktree beside the one the environment was installed from)
        "PYTHONPATH": str(ROOT),
        "HOME": str(temp),
        "LANG": "C.UTF-8",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_REPOSITORY_OWNER": REPO.split("/")[0],
        "GITHUB_API_URL": world.fake.api_url,
        "GITHUB_SERVER_URL": world.fake.url,
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_RUN_ID": "31337",
        "GITHUB_RUN_ATTEMPT": "1",
        "RUNNER_TEMP": str(temp),
        "SELFHEAL_GITHUB_WRITE_INTERVAL": "0",
        "INPUT_GITHUB-TOKEN": world.token,
        "INPUT_SANDBOX": "local",
        "INPUT_MAX-MINUTES": "5",
        "INPUT_PERMISSION": "write",
        "INPUT_MODE": "auto",
        "INPUT_DRY-RUN": "false",
    }
    for name, value in inputs.items():
        env[f"INPUT_{name.upper()}"] = value
    return env


def parse_output_file(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT in its heredoc form: name<<DELIM / value lines / DELIM."""
    if not path.exists():
        return {}
    values: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line:
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
            i += 1
        else:
            i += 1
    return values


def path_without(folder: Path, *programs: str) -> str:
    """A PATH with every program of today's PATH but `programs`, made of links in `folder`: a
    runner without bubblewrap, say, on a machine that has it."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            link = folder / entry.name
            if entry.name not in programs and not link.exists() and not link.is_symlink():
                link.symlink_to(entry.path)
    return str(folder)


def push_to_new_remote(seed: Path, remote: Path, message: str) -> str:
    """Commit `seed` as the first commit of `main` and push it to a new bare `remote`; its sha."""
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", message)
    git(remote.parent, "init", "-q", "--bare", "-b", "main", str(remote))
    git(seed, "push", "-q", str(remote), "main")
    return git(seed, "rev-parse", "HEAD").strip()


def seed_remote(tmp: Path) -> tuple[Path, dict[str, str]]:
    """A bare remote with: main (the intervals example, one failing boundary test), feature (main +
    a docs commit: the PR head) and green (the bug fixed: every test passes)."""
    work = tmp / "seed"
    shutil.copytree(EXAMPLES / "intervals", work, ignore=shutil.ignore_patterns(".selfheal", "__pycache__"))
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "intervals")
    shas = {"main": git(work, "rev-parse", "HEAD").strip()}
    git(work, "checkout", "-q", "-b", "feature")
    (work / "NOTES.md").write_text("touching intervals should merge\n", encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "notes")
    shas["feature"] = git(work, "rev-parse", "HEAD").strip()
    git(work, "checkout", "-q", "-b", "green", "main")
    core = work / "intervals" / "core.py"
    core.write_text(core.read_text(encoding="utf-8").replace(*FIXED_LINE), encoding="utf-8")
    git(work, "commit", "-q", "-am", "fix boundary")
    shas["green"] = git(work, "rev-parse", "HEAD").strip()
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    git(work, "push", "-q", str(remote), "main", "feature", "green")
    return remote, shas


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    remote, shas = seed_remote(tmp_path)
    token = "ghs_" + secrets.token_hex(16)
    state = {
        "token": token,
        "bot_login": "github-actions[bot]",
        "repos": [
            {
                "full_name": REPO,
                "default_branch": "main",
                "git_dir": str(remote),
                "collaborators": COLLABORATORS,
                "pulls": [
                    {
                        "number": 7,
                        "title": "Add notes",
                        "body": "",
                        "user": "alice",
                        "head_ref": "feature",
                        "head_sha": None,
                        "base_ref": "main",
                        "head_full_name": REPO,
                    },
                    {
                        "number": 8,
                        "title": "From a fork",
                        "body": "",
                        "user": "mallory",
                        "head_ref": "feature",
                        "head_sha": None,
                        "base_ref": "main",
                        "head_full_name": "mallory/widgets",
                    },
                ],
                "issues": [
                    {"number": 3, "title": "merge drops touching intervals", "body": "", "user": "alice"}
                ],
            }
        ],
    }
    fake = FakeGitHub.start(tmp_path / "fake", state)
    try:
        yield World(tmp_path, remote, fake, token, shas)
    finally:
        fake.stop()


def all_text_under(path: Path) -> str:
    chunks = []
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        chunks.append(file.read_bytes().decode("utf-8", "replace"))
    return "\n".join(chunks)


@pytest.fixture
def temps_world(tmp_path: Path) -> Iterator[World]:
    """A world whose bug the search cannot fix (tests/action/model_world.py): for model heals."""
    from tests.action.model_world import github_state, seed_temps_remote

    remote, shas = seed_temps_remote(tmp_path)
    token = "ghs_" + secrets.token_hex(16)
    fake = FakeGitHub.start(tmp_path / "fake", github_state(remote, token))
    try:
        yield World(tmp_path, remote, fake, token, shas)
    finally:
        fake.stop()
