"""Landlock: the allowlist view where bubblewrap cannot make namespaces.

Without namespaces the tests run on the host's own file system, as the sandbox's uid or selfheal's
user: file modes alone would let them read every world-readable file of the machine (a service's
key kept 0644 in /etc/selfheal, another job's report). Landlock (Linux 5.13+, no privilege needed)
restricts a process and everything it starts to the folders it was given: here the system's
folders, the interpreter's and the allowlisted files of /etc to read and run, the workspace and the
machine's scratch folders to write. What the rules do not name cannot be opened, whatever its mode.

The ruleset is built in selfheal's process (paths opened, rules added) and only enforced in the
child, between fork and exec, after no_new_privs: the child then carries it through exec.
"""

from __future__ import annotations

import ctypes
import os
import platform
from dataclasses import dataclass
from pathlib import Path

_LIBC = ctypes.CDLL(None, use_errno=True)
# The same numbers on every architecture: the calls came after the system call tables were unified.
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2 and 3
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE  # the only rights a rule on a file may hold
READ = EXECUTE | READ_FILE | READ_DIR
DEVICES = READ_FILE | WRITE_FILE | READ_DIR | TRUNCATE  # /dev/null opened for writing truncates
WRITE = READ | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO
WRITE |= MAKE_SYM | REFER | TRUNCATE
# Device ioctls (ABI 5) are left unhandled: isatty() on /dev/null must keep answering as it does.


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


def abi_version() -> int:
    """Landlock's ABI version here, 0 where the kernel lacks it or it is switched off."""
    if platform.system() != "Linux":
        return 0
    version = _LIBC.syscall(CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


def handled_rights(abi: int) -> int:
    handled = READ | WRITE | MAKE_CHAR | MAKE_BLOCK
    if abi < 2:
        handled &= ~REFER
    if abi < 3:
        handled &= ~TRUNCATE
    return handled


@dataclass(frozen=True)
class Ruleset:
    """A ruleset ready to enforce in a child: its file descriptor, which the child must inherit."""

    fd: int
    abi: int

    def enforce(self) -> None:
        """In the child between fork and exec (no_new_privs is set here if it is not yet)."""
        if _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if _LIBC.syscall(RESTRICT_SELF, ctypes.c_int(self.fd), ctypes.c_uint32(0)) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"landlock_restrict_self failed: {os.strerror(errno)}")

    def close(self) -> None:
        os.close(self.fd)


def build_ruleset(read: tuple[Path, ...], write: tuple[Path, ...], devices: tuple[Path, ...] = ()) -> Ruleset:
    """A ruleset allowing `read` (read and run), `write` (anything but device nodes) and `devices`
    (read and write files, list folders); paths that do not exist are left out. OSError where the
    kernel has no Landlock."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    handled = handled_rights(abi)
    attr = ctypes.c_uint64(handled)
    fd = _LIBC.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(8), ctypes.c_uint32(0))
    if fd < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"landlock_create_ruleset failed: {os.strerror(errno)}")
    try:
        for paths, rights in ((read, READ), (devices, DEVICES), (write, WRITE)):
            for path in dict.fromkeys(paths):
                _add(fd, path, rights & handled)
    except BaseException:
        os.close(fd)
        raise
    return Ruleset(fd, abi)


def _add(ruleset: int, path: Path, rights: int) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # not on this machine: nothing to allow
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(rights, target)
        if _LIBC.syscall(ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(rule),
                         ctypes.c_uint32(0)) != 0:  # fmt: skip
            errno = ctypes.get_errno()
            raise OSError(errno, f"landlock_add_rule({path}) failed: {os.strerror(errno)}")
    finally:
        os.close(target)
