"""The mirror of an interpreter the sandbox's uid cannot reach (a Python under /root, say).

Run as root on a machine whose test interpreter lives behind a closed folder (this project's CI:
pyenv under /root), the local sandbox without namespaces runs the tests on a mirror of it: hard
links in folders that uid can reach. The mirror must be the same Python (its own libpython, not
the system's), run as that uid, and show nothing of the closed folder but the installation.
"""

from __future__ import annotations

import fcntl
import os
import sys
import tempfile
from pathlib import Path

import pytest

from selfheal.sandbox import LocalSandbox
from selfheal.sandbox.identity import RESERVATIONS, readable_by_others
from selfheal.sandbox.interpreter import Layout, _cache_for, reachable_interpreter
from tests.sandbox.conftest import interpreter_folders

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the mirror is for sessions started as root")


def closed_interpreter() -> str:
    layout = Layout.of(sys.executable)
    if all(readable_by_others(p) for p in (*layout.sources, layout.python)):
        pytest.skip(f"{sys.executable} is open to other users here: no mirror to make")
    return sys.executable


def test_an_open_interpreter_needs_no_mirror(open_python: str) -> None:
    assert reachable_interpreter(open_python) == (None, "")


@ROOT_ONLY
def test_the_mirror_is_the_same_python_run_by_the_sandbox_uid(open_folder: Path) -> None:
    python = closed_interpreter()
    workspace = open_folder / "ws"
    workspace.mkdir()
    with LocalSandbox(namespaces=False).start(
        workspace, expose=interpreter_folders(python), python=python
    ) as session:
        assert session.python is not None and session.python != python
        assert "the tests run on a mirror of" in session.info.isolation
        done = session.run(
            [session.python, "-c", "import os, sys, pytest; print(os.getuid(), sys.version, sys.prefix)"],
            timeout=60,
        )
        uid = session.facts.uid
    assert done.returncode == 0, done.stderr
    seen_uid, _, rest = done.stdout.partition(" ")
    assert int(seen_uid) == uid != 0
    assert rest.startswith(sys.version.split()[0] + " ")  # its own libpython, not the system's
    mirror = Path(session.python)
    assert mirror.parents[2].name == "selfheal-interpreters"
    # root's, closed to writes: nothing a sandbox uid could change for the next heal
    for folder in (mirror.parents[2], mirror.parents[1]):
        info = folder.stat()
        assert info.st_uid == 0 and not info.st_mode & 0o022


@ROOT_ONLY
def test_a_mirror_folder_someone_else_made_first_is_not_used() -> None:
    with tempfile.TemporaryDirectory() as parent:
        os.chmod(parent, 0o1777)
        planted = Path(parent) / "selfheal-interpreters"
        planted.mkdir()
        os.chown(planted, 54321, 54321)  # an unprivileged user got there first
        assert _cache_for(Path(sys.prefix), parents=(Path(parent),)) is None
        planted.rmdir()
        planted.symlink_to("/etc")
        assert _cache_for(Path(sys.prefix), parents=(Path(parent),)) is None


def reservation_is_free(uid: int) -> bool:
    folder = next(f for f in RESERVATIONS if (f / str(uid)).exists())
    with open(folder / str(uid), "rb") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


@ROOT_ONLY
def test_a_workspace_the_uid_cannot_reach_is_refused_unless_the_risk_is_accepted(open_python: str) -> None:
    from selfheal.sandbox.exceptions import SandboxUnavailable

    with tempfile.TemporaryDirectory() as closed:  # 0700, root's
        workspace = Path(closed) / "ws"
        workspace.mkdir()
        sandbox = LocalSandbox(namespaces=False)
        with pytest.raises(
            SandboxUnavailable, match=r"that uid cannot reach the workspace .* closed to other users"
        ) as refused:
            sandbox.start(workspace, expose=interpreter_folders(open_python), python=open_python)
        # the uid it had taken (the workspace was given to it) is free again, though the refusal,
        # and with it the half-made session, is still held here
        uid = workspace.stat().st_uid
        assert uid != 0 and refused.value.__traceback__ is not None
        assert reservation_is_free(uid)
        accepted = LocalSandbox(namespaces=False, accept_unsafe=True)
        with accepted.start(
            workspace, expose=interpreter_folders(open_python), python=open_python
        ) as session:
            facts = session.facts
            done = session.run([open_python, "-c", "import os; print(os.getuid())"], timeout=30)
    assert done.stdout == "0\n"  # what was accepted: the tests ran as root,
    assert (facts.uid, facts.capabilities, facts.contained) == (0, ("all",), False)  # and say so


def test_what_the_interpreters_pth_files_add_is_shown_behind_bubblewrap(
    open_python: str, open_folder: Path
) -> None:
    """An editable install of a neighbouring project, in a folder bubblewrap hides (here /tmp),
    is named by a .pth file of the interpreter's environment: it is bound back, read-only."""
    import subprocess

    neighbour = open_folder / "neighbour-src"
    neighbour.mkdir()
    (neighbour / "neighbour.py").write_text("WHO = 'neighbour'\n")
    venv = open_folder / "venv"
    subprocess.run(
        [open_python, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True
    )
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "__editable__.neighbour-1.0.pth").write_text(f"{neighbour}\n")
    for pth in Path(open_python).parents[1].glob("lib/python*/site-packages/*.pth"):
        (site / pth.name).write_text(pth.read_text())  # the test run's packages, as the open python has them
    python = str(venv / "bin" / "python")
    workspace = open_folder / "ws"
    workspace.mkdir()
    with LocalSandbox().start(workspace, expose=interpreter_folders(python), python=python) as session:
        if not session.facts.namespaces:
            pytest.skip(f"bubblewrap unusable here: {session.info.isolation}")
        done = session.run([python, "-c", "import neighbour; print(neighbour.WHO)"], timeout=60)
        written = session.run([python, "-c", f"open({str(neighbour / 'x')!r}, 'w')"], timeout=60)
    assert done.stdout == "neighbour\n", done.stderr
    assert written.returncode != 0  # shown read-only
