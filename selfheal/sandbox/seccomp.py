"""A seccomp filter that refuses new user namespaces, for bubblewrap's `--seccomp FD`.

As root, bubblewrap runs privileged (no user namespace of its own: one mapped to root outside
would make the commands root on the host's files), and there its `--disable-userns` is not
available. A user namespace would give the commands capabilities over namespaces of their own;
the mounts they inherit stay locked, but nothing in a test needs one, so the filter refuses
`unshare` and `clone` with CLONE_NEWUSER (EPERM) and `clone3` (ENOSYS, on which the C library
falls back to `clone`, where the flag can be read), as container engines' default profiles do.

The program is classic BPF, written out here because libseccomp is not a Python dependency.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

CLONE_NEWUSER = 0x10000000
X32_SYSCALL_BIT = 0x40000000
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
NR_OFFSET, ARCH_OFFSET, ARG0_LOW_OFFSET = 0, 4, 16  # ARG0_LOW: little-endian machines only

BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_JSET_K = 0x45
BPF_RET_K = 0x06

ARCHES = {
    # machine: (AUDIT_ARCH_*, unshare, clone, clone3)
    "x86_64": (0xC000003E, 272, 56, 435),
    "aarch64": (0xC00000B7, 97, 220, 435),
}


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def no_user_namespaces_program(machine: str | None = None) -> bytes | None:
    """The filter for this machine's architecture, or None where it is not known."""
    known = ARCHES.get(machine or platform.machine())
    if known is None:
        return None
    arch, unshare, clone, clone3 = known
    allow = _insn(BPF_RET_K, SECCOMP_RET_ALLOW)
    eperm = _insn(BPF_RET_K, SECCOMP_RET_ERRNO | errno.EPERM)
    enosys = _insn(BPF_RET_K, SECCOMP_RET_ERRNO | errno.ENOSYS)
    # Jump offsets count instructions after the jump; the layout is fixed, so they are literal.
    program = [
        _insn(BPF_LD_W_ABS, ARCH_OFFSET),  # 0
        _insn(BPF_JEQ_K, arch, 1, 0),  # 1: our arch -> 3, another (a 32-bit ABI) -> 2
        eperm,  # 2: no other ABI: its numbers differ and would slip past the checks below
        _insn(BPF_LD_W_ABS, NR_OFFSET),  # 3
        _insn(BPF_JGE_K, X32_SYSCALL_BIT, 0, 1),  # 4: x32 numbers -> 5, else -> 6
        eperm,  # 5
        _insn(BPF_JEQ_K, clone3, 0, 1),  # 6: clone3 -> 7, else -> 8
        enosys,  # 7
        _insn(BPF_JEQ_K, unshare, 1, 0),  # 8: unshare -> 10
        _insn(BPF_JEQ_K, clone, 0, 3),  # 9: clone -> 10, else -> 13 (allow)
        _insn(BPF_LD_W_ABS, ARG0_LOW_OFFSET),  # 10: flags
        _insn(BPF_JSET_K, CLONE_NEWUSER, 0, 1),  # 11: CLONE_NEWUSER -> 12, else -> 13
        eperm,  # 12
        allow,  # 13
    ]
    return b"".join(program)


def program_fd(program: bytes) -> int:
    """A file descriptor bubblewrap reads the program from (a memfd, positioned at its start)."""
    fd = os.memfd_create("selfheal-seccomp", 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
