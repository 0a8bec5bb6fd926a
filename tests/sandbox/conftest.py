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
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest


def interpreter_folders(python: str) -> tuple[Path, ...]:
    """What the sandbox must expose for `python` to run: its environment and the installation
    behind it (the same rule as selfheal.agent.run.interpreter.interpreter_folders, without coverage)."""
    return tuple(sorted({Path(python).parent.parent, Path(os.path.realpath(python)).parent.parent}))


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A new folder any user can pass through (0711) but not list."""
    folder = Path(tempfile.mkdtemp(prefix="selfheal-test-"))
    folder.chmod(0o711)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tcp_server() -> Iterator[tuple[int, list[int]]]:
    """A listening TCP server on the host's 127.0.0.1; yields (port, [accepted count])."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    accepted = [0]
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            accepted[0] += 1
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join(timeout=2)
    server.close()
