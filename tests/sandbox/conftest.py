"""Fixtures for sandbox tests: workspaces and an interpreter an unprivileged uid can reach.

As root, the local sandbox runs commands as a uid of its own, which must be able to pass
through every folder on the way to the workspace and the interpreter. pytest's tmp_path lies in
/tmp/pytest-of-root (mode 0700) and this run's Python may live under /root: fine behind
bubblewrap (which binds them back into place), not without namespaces. So workspaces are made in
an open folder, and commands run on `tests/openpython.py`'s interpreter.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def interpreter_folders(python: str) -> tuple[Path, ...]:
    """What the sandbox must expose for `python` to run: its environment and the installation
    behind it (the same rule as selfheal.agent.loop.interpreter_folders, without coverage)."""
    return tuple(sorted({Path(python).parent.parent, Path(os.path.realpath(python)).parent.parent}))


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A new folder any user can pass through (0711) but not list."""
    folder = Path(tempfile.mkdtemp(prefix="selfheal-test-"))
    folder.chmod(0o711)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
