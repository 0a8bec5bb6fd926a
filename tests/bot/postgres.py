"""A real PostgreSQL for the tests: Debian's `postgresql` package, a cluster made with initdb in a
temporary folder and started with pg_ctl, as an unprivileged user when the tests run as root
(PostgreSQL refuses to run as root). Skipped, saying why, only where the binaries are missing."""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def _binary(name: str) -> str | None:
    for folder in BIN_DIRS:
        if (folder / name).is_file():
            return str(folder / name)
    return shutil.which(name)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_user() -> tuple[list[str], int | None]:
    if os.geteuid() != 0:
        return [], None
    nobody = pwd.getpwnam("nobody")
    return [
        "setpriv",
        f"--reuid={nobody.pw_uid}",
        f"--regid={nobody.pw_gid}",
        "--clear-groups",
    ], nobody.pw_uid


def _run(argv: list[str], env: dict[str, str], cwd: Path, log: Path | None = None) -> None:
    """Run a PostgreSQL program; when it fails, the error says what it printed (and the server's
    log), which the return code alone does not."""
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    if done.returncode != 0:
        said = (done.stdout + done.stderr).strip()
        if log is not None and log.is_file():
            said += "\n--- server log ---\n" + log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise RuntimeError(f"{shlex.join(argv)} exited {done.returncode}:\n{said}")


@contextmanager
def running_postgres(folder: Path) -> Iterator[str]:
    """A cluster in `folder` (made here), started; its URL. Raises FileNotFoundError without PostgreSQL."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if not (initdb and pg_ctl):
        raise FileNotFoundError("PostgreSQL is not installed (Debian package postgresql)")
    folder.mkdir(parents=True, exist_ok=True)
    prefix, uid = _as_user()
    if uid is not None:
        os.chown(folder, uid, -1)
        folder.chmod(0o700)
        for parent in folder.parents:  # nobody must reach the folder
            if parent == Path(parent.anchor):
                break
            parent.chmod(parent.stat().st_mode | 0o011)
    data, port = folder / "data", _free_port()
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "HOME": str(folder)}
    _run([*prefix, initdb, "-D", str(data), "-A", "trust", "-U", "selfheal", "--no-sync"], env, folder)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    start = [*prefix, pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "start"]
    _run(start, env, folder, log=folder / "log")
    try:
        yield f"postgresql://selfheal@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, env=env, cwd=folder)  # fmt: skip


@pytest.fixture
def postgres_url() -> Iterator[str]:
    if not (_binary("initdb") and _binary("pg_ctl")):
        pytest.skip("PostgreSQL is not installed (Debian package postgresql; .ci/run installs it)")
    # Not under pytest's own temporary folder: any pytest run as root elsewhere on the machine (a
    # heal's tests run without namespaces, a task's suite) closes /tmp/pytest-of-root to others
    # again, and the cluster's user could then no longer reach its folder.
    top = Path(tempfile.mkdtemp(prefix="selfheal-pg-"))
    try:
        with running_postgres(top / "cluster") as url:
            yield url
    finally:
        shutil.rmtree(top, ignore_errors=True)
