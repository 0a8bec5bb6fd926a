"""Secrets out of the process environment before anything of the repository runs.

The runner hands the token and API keys over as environment variables, and a process's initial
environment stays readable at /proc/<pid>/environ for its whole life. So the entrypoint moves
every secret-looking variable into a pipe and re-executes itself with an environment that has
none; the new image reads them back into memory only. `make_undumpable` then closes
/proc/<pid>/mem and environ to processes without CAP_SYS_PTRACE — in a container action, every
process of the repository's tests, which is what matters when the local sandbox runs there
without namespaces. (A host's root keeps CAP_SYS_PTRACE: there the sandbox's namespaces or the
docker sandbox are what keep tests out.)
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from collections.abc import Mapping

FD_VARIABLE = "SELFHEAL_SECRETS_FD"
MARKERS = ("TOKEN", "KEY", "SECRET", "PASS", "CREDENTIAL", "AUTH", "PRIVATE", "COOKIE")
PR_SET_DUMPABLE = 4


def is_secret(name: str) -> bool:
    upper = name.upper()
    return any(marker in upper for marker in MARKERS)


def reexec_without_secrets(argv: list[str]) -> None:
    """Replace this process by `python -m selfheal <argv>` with the secrets passed through a pipe.

    Returns only when there is nothing to move (or this is already the re-executed image)."""
    if FD_VARIABLE in os.environ:
        return
    secrets = {k: v for k, v in os.environ.items() if is_secret(k)}
    if not secrets:
        return
    payload = json.dumps(secrets).encode("utf-8")
    read_end, write_end = os.pipe()
    if len(payload) >= 60_000:  # more than a pipe holds without a reader: keep the environment
        os.close(read_end)
        os.close(write_end)
        return
    os.write(write_end, payload)
    os.close(write_end)
    os.set_inheritable(read_end, True)
    clean = {k: v for k, v in os.environ.items() if not is_secret(k)}
    clean[FD_VARIABLE] = str(read_end)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "selfheal", *argv], clean)


def environment_with_secrets() -> dict[str, str]:
    """os.environ plus the secrets handed over by `reexec_without_secrets` (read once, fd closed)."""
    env = dict(os.environ)
    fd = env.pop(FD_VARIABLE, None)
    if fd is None:
        return env
    os.environ.pop(FD_VARIABLE, None)
    chunks = []
    with os.fdopen(int(fd), "rb") as pipe:
        while chunk := pipe.read(65536):
            chunks.append(chunk)
    secrets: Mapping[str, str] = json.loads(b"".join(chunks) or b"{}")
    env.update(secrets)
    return env


def make_undumpable() -> None:
    """Keep same-user processes without CAP_SYS_PTRACE out of /proc/<pid>/mem and environ.

    Children get a fresh, dumpable image when they exec, so test runs are unaffected."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
