"""bubblewrap: new namespaces without a daemon.

The command gets its own pid, network, ipc, uts and mount namespaces and a view of the file
system built from an allowlist, not from a list of places to hide: the system's programs and
libraries (/usr and its companions), the few files of /etc that programs read to start (the loader's
cache, certificates, time zone, users and groups, Python's own folder), the folders the test
interpreter needs, read-only, and the workspace, writable; a private /tmp and /dev/shm of bounded
size. Nothing else of the host exists inside: an operator's key in /etc/selfheal, a queue database
in /var/lib, another job's folder beside this one are not there to be read, whatever their mode.
With a private pid namespace, ending the command ends everything it started.

Two ways to get there:

- selfheal is not root: bubblewrap makes a user namespace, in which the command keeps
  selfheal's uid with no capabilities, and may not make user namespaces of its own.
- selfheal is root: bubblewrap runs privileged (no user namespace: one mapped to root outside
  would leave the command root on the host's files), sets up the mounts, and execs `setpriv`,
  which becomes the session's own unprivileged uid with an empty capability bounding set and
  no_new_privs before it execs the command. A seccomp filter refuses new user namespaces.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from selfheal.sandbox.identity import SandboxUser, closed_folder
from selfheal.sandbox.seccomp import no_user_namespaces_program, program_fd

# The host's folders a command sees read-only whole: programs and shared libraries.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The entries of /etc that programs read to start, and nothing an operator keeps there for a
# service (keys, pip.conf and .npmrc with an index's credentials, a bot's settings).
ETC = (
    "alternatives", "ca-certificates", "ca-certificates.conf", "crypto-policies", "debian_version",
    "fonts", "gai.conf", "gitconfig", "group", "host.conf", "hosts", "ld.so.cache", "ld.so.conf",
    "ld.so.conf.d", "locale.alias", "localtime", "lsb-release", "magic", "magic.mime", "mime.types",
    "nsswitch.conf", "os-release", "passwd", "pki", "protocols", "resolv.conf", "services", "ssl",
    "terminfo", "timezone",
)  # fmt: skip
ETC_PATTERNS = ("python3*",)  # Debian's sitecustomize for its Python
HIDDEN_IN_ETC = ("/etc/ssl/private", "/etc/pki/tls/private")  # the machine's own TLS keys
SCRATCH = (Path("/tmp"),)  # private, writable, bounded
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
            *system_view(),
            "--dev", "/dev",
            "--proc", "/proc",
            *[a for p in (*SCRATCH, Path("/dev/shm"))
              for a in ("--perms", "1777", "--size", str(self.scratch_bytes), "--tmpfs", str(p))],
            *[a for p in self._covered(workspace) for a in ("--tmpfs", str(p))],
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

    def _needed(self, workspace: Path) -> tuple[Path, ...]:
        return (*[p for p in self.expose if p.exists()], workspace)

    def _folders_on_the_way(self, workspace: Path) -> list[str]:
        """Open (0755) folders on the way to what is bound in: outside the system's folders they
        do not exist in the view, and inside a covered closed folder they are gone; bubblewrap
        would make them private to root, which the sandbox user could not pass through."""
        covered = self._covered(workspace)
        made: dict[Path, None] = {}
        for needed in self._needed(workspace):
            for folder in reversed(needed.parents):
                if folder == Path("/") or folder in SCRATCH or folder in covered:
                    continue
                if any(c in folder.parents for c in covered) or not in_system_view(folder):
                    made[folder] = None
        return [a for folder in made for a in ("--perms", "0755", "--dir", str(folder))]

    def _covered(self, workspace: Path) -> list[Path]:
        """As root: the first folder closed to others on the way to each folder the command needs
        inside the system's view, replaced by an empty one (a tmpfs) in which only what is bound
        back appears: the sandbox user can reach it, and nothing else that was there."""
        if not self.privileged:
            return []
        covered: list[Path] = []
        for needed in self._needed(workspace):
            closed = closed_folder(needed.parent)
            if closed is not None and closed != Path("/") and in_system_view(closed):
                covered.append(closed)
        return sorted(p for p in dict.fromkeys(covered) if not any(q in p.parents for q in covered))


def _etc_entries(etc: Path = Path("/etc")) -> list[Path]:
    try:
        names = sorted(os.listdir(etc))
    except OSError:
        return []
    return [etc / n for n in names if n in ETC or any(fnmatch.fnmatchcase(n, pat) for pat in ETC_PATTERNS)]


def system_view() -> list[str]:
    """The host's part of the view: SYSTEM folders and the allowlisted entries of /etc, read-only,
    symbolic links as they are (a merged /usr's /bin -> usr/bin); the machine's TLS keys covered."""
    args: list[str] = []
    for name in SYSTEM:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    args += ["--perms", "0755", "--dir", "/etc"]
    for path in _etc_entries():
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.exists():
            args += ["--ro-bind", str(path), str(path)]
    for private in HIDDEN_IN_ETC:
        if os.path.isdir(private) and not os.path.islink(private):
            args += ["--tmpfs", private]
    return args


def system_paths() -> tuple[Path, ...]:
    """The host's paths the view shows read-only (SYSTEM folders that are not links, and the
    allowlisted entries of /etc), for a backend that grants access path by path (Landlock)."""
    top = [Path(n) for n in SYSTEM if Path(n).is_dir() and not Path(n).is_symlink()]
    return (*top, *_etc_entries())


def in_system_view(path: Path) -> bool:
    """Whether `path` (absolute, resolved) lies in the host's part of the view: a job could read
    it, mode permitting."""
    for name in SYSTEM:
        top = Path(name)
        if not top.is_symlink() and (path == top or top in path.parents):
            return True
    if path.parts[:2] != ("/", "etc"):
        # Listing /etc costs a directory read and a pattern match per entry; a bwrap command
        # asks about every folder on the way to what it binds, and those are rarely in /etc.
        return False
    for entry in _etc_entries():
        if path == entry or entry in path.parents:
            return not any(path == Path(h) or Path(h) in path.parents for h in HIDDEN_IN_ETC)
    return False


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
