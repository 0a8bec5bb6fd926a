"""bubblewrap: new namespaces without a daemon.

The command gets its own user, pid, network, ipc and uts namespaces, a read-only view of the
whole file system except the workspace, a private /tmp and /dev. With a private pid namespace,
ending the command ends everything it started: the kernel kills the namespace with its init.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Bwrap:
    executable: str
    # Host folders under /tmp that commands must still read (the private /tmp hides them),
    # e.g. the virtual environment of the interpreter that runs the tests.
    expose: tuple[Path, ...] = ()

    def prefix(self, workspace: Path, cwd: Path) -> list[str]:
        ws = str(workspace)
        shown = [arg for path in self.expose if path.exists() for arg in ("--ro-bind", str(path), str(path))]
        return [
            self.executable,
            "--unshare-all",
            # If selfheal dies, the namespace dies with it. The death signal is tied to the
            # spawning thread, so LocalSession spawns from one thread that outlives its commands.
            "--die-with-parent",
            "--new-session",
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/tmp",
            *shown,
            "--bind", ws, ws,
            "--chdir", str(cwd),
            "--",
        ]  # fmt: skip


def probe_bwrap(workspace: Path, expose: tuple[Path, ...] = ()) -> tuple[Bwrap | None, str]:
    """A working bwrap, or None and the reason it cannot be used here."""
    executable = shutil.which("bwrap")
    if executable is None:
        return None, "bwrap not installed"
    tmp = Path("/tmp")
    bwrap = Bwrap(executable, tuple(p for p in expose if tmp in p.resolve().parents))
    try:
        done = subprocess.run(
            [*bwrap.prefix(workspace, workspace), "true"],
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bwrap failed to start: {exc}"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"bwrap unusable here: {reason[-1] if reason else done.returncode}"
    return bwrap, "bwrap namespaces (user, pid, net, ipc, uts), read-only outside the workspace"
