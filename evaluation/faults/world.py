"""What a fault case's run stands on, whichever way it heals (`selfheal action` against the fake
GitHub, or `selfheal heal` against the fake Messages API): the intervals example as a git
repository, and the look for processes of its heals still alive afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from evaluation.faults.cases import ROOT

FAKE = ROOT / "tests" / "fakes" / "github_server.py"
EXAMPLE = ROOT / "examples" / "intervals"
UID_RANGE = range(50000, 60001)  # selfheal/sandbox/identity.py


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": str(cwd)}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@e")
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def intervals_repo(folder: Path) -> Path:
    """The intervals example (one test fails) committed on main in a new repository at `folder`."""
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns(".selfheal", "__pycache__"))
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "intervals")
    return folder


def leftovers(work: Path) -> str:
    """Processes of this case's heals still alive: any whose command line or folder is under
    `work` (the fake GitHub's excepted), and any of a sandbox uid among them."""
    found = []
    mark = str(work)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            cwd = os.readlink(entry / "cwd")
            uid = int((entry / "status").read_text().split("\nUid:\t", 1)[1].split()[0])
        except (OSError, IndexError, ValueError):
            continue
        if str(FAKE) in cmdline or "tests.fakes." in cmdline or not (mark in cmdline or cwd.startswith(mark)):
            continue
        found.append(f"pid {entry.name} uid {uid}" + (" (a sandbox uid)" if uid in UID_RANGE else ""))
    return ", ".join(found[:5])
