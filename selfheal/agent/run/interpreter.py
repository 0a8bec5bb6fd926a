"""Which interpreter runs the repository's tests, and which host folders it needs to see.

resolve_python(requested, repo) -> path     --python, else the repo's own .venv, else ours
interpreter_folders(python) -> folders      what a local sandbox must show it
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from pathlib import Path

from selfheal.agent.exceptions import InterpreterError
from selfheal.agent.run.workspace import git


def interpreter_folders(python: str) -> tuple[Path, ...]:
    """Host folders the test interpreter reads: its environment, the base installation behind
    a venv, and the coverage.py that selfheal lends interpreters which lack one."""
    folders = {Path(python).parent.parent, Path(os.path.realpath(python)).parent.parent}
    lent = coverage_package()
    if lent is not None:
        folders.add(lent)
    return tuple(sorted(folders))


def coverage_package() -> Path | None:
    """The folder of the coverage.py package selfheal runs with, found without importing it
    (an import costs every heal a tenth of a CPU-second for a path)."""
    spec = importlib.util.find_spec("coverage")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def resolve_python(requested: str | None, repo: Path, *, repo_venv: bool = True) -> str:
    """--python if given; else the repo's own .venv (with `repo_venv`); else the Python selfheal
    runs on."""
    if requested:
        found = requested if os.sep in requested else (shutil.which(requested) or requested)
        path = Path(found).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise InterpreterError(f"--python {shlex.quote(requested)}: no such executable")
        return str(path)
    # a .venv committed with the code is the repository's choice of interpreter (and of what the
    # sandbox shows the tests): only the user's own, untracked one is used
    repo_venv = repo_venv and not _tracked(repo, ".venv")
    for candidate in (repo / ".venv" / "bin" / "python", repo / ".venv" / "Scripts" / "python.exe"):
        if repo_venv and candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return sys.executable


def _tracked(repo: Path, path: str) -> bool:
    """Whether git tracks anything at `path` in `repo` (False outside a git repository)."""
    listed = git(repo, "ls-files", "-z", "--", path, check=False)
    return listed.returncode == 0 and bool(listed.stdout.strip(b"\0"))
