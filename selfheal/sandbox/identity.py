"""The user a local session's commands run as when selfheal itself runs as root.

Root in the sandbox is root on the machine: it can read every file, remount what bubblewrap made
read-only, leave any cgroup and ptrace selfheal. So as root, a session takes a uid of its own —
one no account and no running process has — gives it the workspace copy and nothing else, and
runs every command as that uid with no capabilities. A uid per session, not a shared `nobody`,
keeps two heals on one machine (the bot's workers) out of each other's workspaces, and makes
"every process of this session" a question the kernel answers: the processes of that uid.

A uid no process has is not yet a free one: a session between two commands has none running. So
each session also holds a lock on its uid's file in a folder only its user can write
(`/run/selfheal/uids`, else one in the temporary directory), for as long as it lives; another
session, of this process or any other on the machine, passes over a uid it cannot lock. Without
the lock two sessions could take one uid, and one's "kill every process of my uid" would kill the
other's tests, and each could reach the other's workspace.
"""

from __future__ import annotations

import ctypes
import fcntl
import io
import os
import pwd
import random
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from selfheal.sandbox.processes import kill_verified

# Below 65536, so the uid exists in user-namespaced container engines too (they map 0-65535);
# above the usual range of human accounts.
UID_RANGE = (50_000, 60_000)
# Where the sessions of this machine hold their uids (the first folder that can be made, owned by
# this user and closed to others).
RESERVATIONS = (Path("/run/selfheal/uids"), Path(tempfile.gettempdir()) / f"selfheal-uids-{os.geteuid()}")
# Folders every user may write even without namespaces; cleared of the session's files at its end.
SHARED_SCRATCH = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
# Loaded here, not in the child: dlopen between fork and exec could wait on a lock another
# thread of selfheal held at the fork.
_LIBC = ctypes.CDLL(None, use_errno=True)


def _last_capability() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 40


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


class Filter:
    """A seccomp program in the form prctl takes, built before the fork that installs it."""

    def __init__(self, program: bytes) -> None:
        self._program = program  # kept alive: the structure points into it
        self.fprog = _SockFprog(len(program) // 8, program)


_LAST_CAPABILITY = _last_capability()


@dataclass(frozen=True)
class SandboxUser:
    uid: int
    gid: int
    # the open, locked reservation file of the uid (None where no reservation folder could be made)
    held: io.FileIO | None = field(default=None, compare=False, repr=False)

    @classmethod
    def allocate(cls, uid_range: tuple[int, int] = UID_RANGE) -> SandboxUser:
        busy = _uids_running()
        folder = _reservation_folder()
        rng = random.SystemRandom()
        for _ in range(200):
            uid = rng.randrange(*uid_range)
            if uid in busy or _has_account(uid):
                continue
            held = _reserve(folder, uid) if folder is not None else None
            if folder is not None and held is None:
                continue  # another live session holds it
            return cls(uid, uid, held)
        raise OSError("no free uid for the sandbox user in " + "-".join(map(str, uid_range)))

    def release(self) -> None:
        """Let other sessions take this uid: once no process of it is left (kill_all first).
        Again is harmless: the file is closed once, never a descriptor number reused since."""
        if self.held is not None:
            self.held.close()

    def drop_to(self, seccomp: Filter | None = None) -> None:
        """In a child process between fork and exec: become this user for good, with no
        capabilities, an empty bounding set and no way back (no_new_privs: setuid programs and
        file capabilities are ignored from here on); then install `seccomp`, if given."""
        for capability in range(_LAST_CAPABILITY + 1):
            _LIBC.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)
        os.setgroups([])
        os.setresgid(self.gid, self.gid, self.gid)
        os.setresuid(self.uid, self.uid, self.uid)
        if _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if seccomp is not None and _LIBC.prctl(
            PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(seccomp.fprog)
        ):
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")

    def give(self, root: Path) -> None:
        """Make `root` and everything under it this user's, without following links, and
        `root` closed to every other user (another session's uid included)."""
        os.lchown(root, self.uid, self.gid)
        os.chmod(root, 0o700)
        for folder, dirs, files in os.walk(root):
            for name in (*dirs, *files):
                os.lchown(os.path.join(folder, name), self.uid, self.gid)

    def processes(self) -> list[int]:
        return [pid for pid, uid in _process_uids() if uid == self.uid]

    def kill_all(self, attempts: int = 200) -> int:
        """SIGKILL every process of this user until none is left; how many were killed.

        A process cannot change its uid without privileges, so this finds daemons that left
        their process group, session and (where they could) cgroup. A fork bomb keeps forking
        while this runs; the process limit of the uid bounds it, so the loop ends."""
        killed = 0
        for _ in range(attempts):
            found = self.processes()
            if not found:
                return killed
            for pid in found:
                killed += kill_verified(pid, lambda p: _uid_of(p) == self.uid)
            time.sleep(0.01)
        return killed

    def remove_scratch_files(self, folders: tuple[Path, ...] = SHARED_SCRATCH) -> list[str]:
        """Delete what this user left in world-writable folders; the paths removed."""
        removed = []
        for folder in folders:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.stat(follow_symlinks=False).st_uid != self.uid:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)
                    removed.append(entry.path)
                except OSError:
                    continue
        return removed


def _reservation_folder() -> Path | None:
    for folder in RESERVATIONS:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = os.lstat(folder)
        except OSError:
            continue
        # another user's folder, a link, or one others may write: a session there could be starved
        # or misled; the next place is tried
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022:
            return folder
    return None


def _reserve(folder: Path, uid: int) -> io.FileIO | None:
    """The uid's reservation file, open and locked for this session; None when another holds it.
    The lock goes with the file's last descriptor: a session that dies frees its uid."""
    try:
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return io.FileIO(fd, "r+")


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def _uid_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _process_uids() -> list[tuple[int, int]]:
    """(pid, real uid) of every process this process can see."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Uid:"):
                        found.append((int(entry.name), int(line.split()[1])))
                        break
        except (OSError, ValueError, IndexError):
            continue
    return found


def _uids_running() -> set[int]:
    return {uid for _, uid in _process_uids()}


def closed_folder(path: Path) -> Path | None:
    """The first folder on the way to `path` that a user other than its owner cannot pass
    through (no search permission for others), or None when the whole way is open."""
    path = Path(os.path.abspath(path))
    for folder in [*reversed(path.parents), path]:
        try:
            mode = os.stat(folder).st_mode
        except OSError:
            return folder
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return folder
    return None


def readable_by_others(path: Path) -> bool:
    """Whether a user other than the owner, in none of its groups, can reach and read `path`
    (for a folder: list it and pass through it)."""
    real = Path(os.path.realpath(path))
    if closed_folder(real.parent) is not None:
        return False
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return False
    needed = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & needed == needed
