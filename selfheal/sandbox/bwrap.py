"""bubblewrap: new namespaces without a daemon.

The command gets its own pid, network, ipc, uts and mount namespaces: a read-only view of the
file system except the workspace, a private /tmp and /dev/shm of bounded size, and the places
where a machine keeps its people's and services' secrets (/root, /home, /run) replaced by empty
folders; the folders a command must read (the test interpreter) are bound back read-only. With a
private pid namespace, ending the command ends everything it started.

Two ways to get there:

- selfheal is not root: bubblewrap makes a user namespace, in which the command keeps
  selfheal's uid with no capabilities, and may not make user namespaces of its own.
- selfheal is root: bubblewrap runs privileged (no user namespace: one mapped to root outside
  would leave the command root on the host's files), sets up the mounts, and execs `setpriv`,
  which becomes the session's own unprivileged uid with an empty capability bounding set and
  no_new_privs before it execs the command. A seccomp filter refuses new user namespaces.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from selfheal.sandbox.identity import SandboxUser, closed_folder
from selfheal.sandbox.seccomp import no_user_namespaces_program, program_fd

HIDDEN = ("/tmp", "/root", "/home", "/run", "/var/run", "/mnt", "/media", "/srv")
# Where container engines keep the file systems of running containers: mounts that come and go
# at any moment (bubblewrap gives up when one vanishes while it makes the view read-only), and
# nothing a test needs. The view of the host is built entry by entry around them.
ENGINE_STATE = ("/var/lib/docker", "/var/lib/containerd", "/var/lib/containers", "/var/lib/kubelet",
                "/var/lib/lxc", "/var/lib/lxd", "/var/snap/lxd")  # fmt: skip
# What privileged bubblewrap keeps until setpriv execs: changing uid and gid, emptying the
# bounding set, and entering a workspace folder the sandbox user may have made private.
SETUP_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_DAC_OVERRIDE")
NAMESPACES = ("mount", "pid", "net", "ipc", "uts")


@dataclass(frozen=True)
class Bwrap:
    executable: str
    # Host folders commands must read although a hidden folder covers them or a closed folder
    # (one others may not pass through) lies on their way: e.g. the test interpreter.
    expose: tuple[Path, ...] = ()
    user: SandboxUser | None = None  # as root: the uid the command runs as
    setpriv: str | None = None
    scratch_bytes: int = 512 * 1024 * 1024  # each of /tmp and /dev/shm
    disable_userns: bool = False  # not root: bubblewrap's --disable-userns works here
    seccomp: bytes | None = field(default=None, repr=False)  # root: the no-user-namespace filter

    @property
    def privileged(self) -> bool:
        return self.user is not None

    @property
    def namespaces(self) -> tuple[str, ...]:
        return NAMESPACES if self.privileged else (*NAMESPACES, "user")

    @property
    def blocks_user_namespaces(self) -> bool:
        return self.seccomp is not None if self.privileged else self.disable_userns

    def prefix(self, workspace: Path, cwd: Path) -> tuple[list[str], list[int]]:
        """The argv before the command, and the file descriptors bubblewrap must inherit."""
        fds: list[int] = []
        if self.privileged:
            head = [
                self.executable,
                "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try",
                "--cap-drop", "ALL", *[a for cap in SETUP_CAPS for a in ("--cap-add", cap)],
            ]  # fmt: skip
            if self.seccomp is not None:
                fds.append(program_fd(self.seccomp))
                head += ["--seccomp", str(fds[-1])]
        else:
            head = [self.executable, "--unshare-all", "--unshare-user", "--cap-drop", "ALL"]
            if self.disable_userns:
                head.append("--disable-userns")
        argv = [
            *head,
            # If selfheal dies, the namespace dies with it. The death signal is tied to the
            # spawning thread, so LocalSession spawns from one thread that outlives its commands.
            "--die-with-parent",
            "--new-session",
            *host_view(Path("/"), set(self._covered(workspace))),
            "--dev", "/dev",
            "--proc", "/proc",
            *self._hidden(workspace),
            "--perms", "1777", "--size", str(self.scratch_bytes), "--tmpfs", "/dev/shm",
            *self._folders_on_the_way(workspace),
            *[a for p in self.expose if p.exists() for a in ("--ro-bind", str(p), str(p))],
            "--bind", str(workspace), str(workspace),
            "--remount-ro", "/",  # the folder bubblewrap built the view in: nothing may be added
            "--chdir", str(cwd),
            "--",
        ]  # fmt: skip
        if self.privileged:
            assert self.user is not None and self.setpriv is not None
            argv += [
                self.setpriv,
                "--reuid", str(self.user.uid), "--regid", str(self.user.gid), "--clear-groups",
                "--no-new-privs", "--bounding-set", "-all", "--inh-caps", "-all",
                "--",
            ]  # fmt: skip
        return argv, fds

    def _folders_on_the_way(self, workspace: Path) -> list[str]:
        """Open (0755) folders on the way to what is bound back into a hidden folder: bubblewrap
        would make them private to root, which the sandbox user could not pass through."""
        hidden = self._covered(workspace)
        made: dict[Path, None] = {}
        for needed in (*[p for p in self.expose if p.exists()], workspace):
            top = next((h for h in hidden if h in needed.parents), None)
            if top is None:
                continue
            for folder in reversed(needed.parents):
                if top in folder.parents:
                    made[folder] = None
        return [a for folder in made for a in ("--perms", "0755", "--dir", str(folder))]

    def _hidden(self, workspace: Path) -> list[str]:
        """tmpfs mounts over HIDDEN and, as root, over the first closed folder on the way to
        each folder the command needs (an empty 0755 folder in its place lets the sandbox user
        reach what is bound back into it, and nothing else that was there)."""
        args: list[str] = []
        for path in self._covered(workspace):
            if path == Path("/tmp"):  # writable by anyone, as on the host, but bounded
                args += ["--perms", "1777", "--size", str(self.scratch_bytes)]
            args += ["--tmpfs", str(path)]
        return args

    def _covered(self, workspace: Path) -> list[Path]:
        covered: list[Path] = []
        for name in HIDDEN:
            path = Path(name)
            if path.is_dir() and not path.is_symlink():
                covered.append(path)
        if self.privileged:
            for needed in (workspace, *self.expose):
                closed = closed_folder(needed.parent)
                if closed is not None and closed != Path("/"):
                    covered.append(closed)
        return sorted(p for p in dict.fromkeys(covered) if not any(q in p.parents for q in covered))


def host_view(folder: Path, replaced: set[Path]) -> list[str]:
    """The host's file system read-only, as bind mounts of each entry of `folder`: `replaced`
    folders (given a tmpfs later), /proc and /dev left out, and container engines' state skipped
    (its parents are walked into instead of bound whole)."""
    args: list[str] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return args
    for entry in entries:
        path = Path(entry.path)
        if path in replaced or str(path) in ("/proc", "/dev") or str(path) in ENGINE_STATE:
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif entry.is_dir(follow_symlinks=False) and any(s.startswith(f"{path}/") for s in ENGINE_STATE):
            mode = entry.stat(follow_symlinks=False).st_mode & 0o7777
            args += ["--perms", f"{mode:o}", "--dir", str(path), *host_view(path, replaced)]
        else:
            args += ["--ro-bind", str(path), str(path)]
    return args


def probe_bwrap(
    workspace: Path,
    expose: tuple[Path, ...] = (),
    *,
    user: SandboxUser | None = None,
    scratch_bytes: int = 512 * 1024 * 1024,
) -> tuple[Bwrap | None, str]:
    """A working bwrap, or None and the reason it cannot be used here. `user`: selfheal is root
    and the command must run as that user (privileged bubblewrap + setpriv)."""
    executable = shutil.which("bwrap")
    if executable is None:
        return None, "bwrap not installed"
    exposed = tuple(dict.fromkeys(Path(p).resolve() for p in expose))
    if user is not None:
        setpriv = shutil.which("setpriv", path=os.environ.get("PATH", "") + ":/usr/bin:/bin")
        if setpriv is None:
            return None, "setpriv (util-linux) not installed, needed to run bwrap's commands as another uid"
        candidates = [
            Bwrap(executable, exposed, user, setpriv, scratch_bytes, seccomp=no_user_namespaces_program())
        ]
    else:
        candidates = [
            Bwrap(executable, exposed, scratch_bytes=scratch_bytes, disable_userns=True),
            Bwrap(executable, exposed, scratch_bytes=scratch_bytes),  # bwrap or kernel without it
        ]
    reason = ""
    for bwrap in candidates:
        reason = _try(bwrap, workspace)
        if not reason:
            return bwrap, ""
    return None, reason


def _try(bwrap: Bwrap, workspace: Path) -> str:
    argv, fds = bwrap.prefix(workspace, workspace)
    try:
        done = subprocess.run(
            [*argv, "/bin/sh", "-c", "exit 0"],
            capture_output=True,
            timeout=20,
            check=False,
            pass_fds=fds,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed to start: {exc}"
    finally:
        for fd in fds:
            os.close(fd)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap unusable here: {said[-1] if said else done.returncode}"
    return ""
