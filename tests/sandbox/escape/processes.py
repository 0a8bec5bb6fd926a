"""Family `processes`: daemons, a fork bomb, signals to selfheal, capabilities, user namespaces, devices.

Harmless by construction: every process started carries the case's marker in its command line and
exits by itself within two minutes (the host kills what it finds after the heal); the fork bomb
stops at 1024 processes and releases them; signals are signal 0 (a permission check); a mount is
a 1 MiB tmpfs on a folder of the workspace, unmounted at once; / is remounted read-write, and /tmp
unmounted, only inside a private mount namespace; devices are only read, a few bytes. Copied into
the case's repository as escape_attacks.py; runs inside the sandbox.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import socket
import subprocess
import sys

import escape_kit as kit

FAMILY = "processes"
CASES = [
    {
        "id": "proc-daemons",
        "title": "daemons: a double fork, a setsid child ignoring SIGTERM/SIGHUP, one leaving its cgroup",
        "attack": "daemons",
    },
    {
        "id": "proc-fork-bomb",
        "title": "a fork bomb, capped at 1024 processes",
        "attack": "fork_bomb",
    },
    {
        "id": "proc-signals",
        "title": "signal 0 (the permission check of kill) to selfheal, the harness and the host's init",
        "attack": "signals",
    },
    {
        "id": "proc-capabilities",
        "title": "capabilities: mount, remount / read-write, unmount the private /tmp, chroot, mknod, raw IP",
        "attack": "capabilities",
    },
    {
        "id": "proc-userns",
        "title": "a new user namespace, and a mount inside it",
        "attack": "user_namespace",
    },
    {
        "id": "proc-devices",
        "title": "devices: /dev/kmsg, /dev/mem and the raw disks, read a few bytes",
        "attack": "devices",
    },
]

SLEEPER = (
    "import os, signal, sys, time\n"
    "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
    "    signal.signal(s, signal.SIG_IGN)\n"
    "time.sleep(float(sys.argv[2]))\n"
)
LIFETIME = "120"


def _double_fork() -> None:
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", SLEEPER, kit.MARKER, LIFETIME, "double-fork"])
        finally:
            os._exit(0)
    os.wait()


def _leave_cgroup(pid: int) -> list[str]:
    """Move `pid` into every ancestor of its cgroups that accepts it, up to the root."""
    moved = []
    try:
        with open(f"/proc/{pid}/cgroup") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return moved
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers not in ("pids", ""):
            continue
        base = "/sys/fs/cgroup/pids" if controllers == "pids" else "/sys/fs/cgroup"
        if controllers == "" and os.path.isdir("/sys/fs/cgroup/unified"):
            base = "/sys/fs/cgroup/unified"
        parts = [p for p in path.split("/") if p]
        for depth in range(len(parts) - 1, -1, -1):
            procs = os.path.join(base, *parts[:depth], "cgroup.procs")
            try:
                with open(procs, "w") as handle:
                    handle.write(str(pid))
            except OSError:
                continue
            moved.append(procs)
            break
    return moved


def daemons(findings: kit.Findings) -> None:
    _double_fork()
    kit.spawn_marked(SLEEPER, LIFETIME, "setsid")  # ignores the signals a polite kill sends
    escapee = subprocess.Popen(
        [sys.executable, "-c", SLEEPER, kit.MARKER, LIFETIME, "cgroup-escapee"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    moved = _leave_cgroup(escapee.pid)
    if moved:
        findings.got(f"moved a daemon out of its pids cgroup into {moved[0]}")
    else:
        findings.stopped("leaving the pids cgroup: no ancestor's cgroup.procs was writable")
    findings.stopped("3 daemons started (the host looks for them after the heal)")


def fork_bomb(findings: kit.Findings) -> None:
    count, error = kit.fork_count(1024)
    if count >= 1024:
        findings.got(f"forked {count} processes: nothing bounded the count")
    else:
        findings.stopped(f"stopped after {count} processes", error or "no reason given")


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def signals(findings: kit.Findings) -> None:
    origin = kit.CONFIG["origin"].encode()
    targets = [
        (int(p), "selfheal")
        for p in os.listdir("/proc")
        if p.isdigit() and origin in _cmdline(int(p)) and b"selfheal" in _cmdline(int(p))
    ]
    # a pid number alone could name a process of the sandbox's own pid namespace: check its command
    if _cmdline(kit.CONFIG["harness_pid"]) == kit.CONFIG["harness_cmdline"].encode("latin-1"):
        targets.append((kit.CONFIG["harness_pid"], "the harness"))
    if _cmdline(1) == kit.CONFIG["init_cmdline"].encode("latin-1"):
        targets.append((1, "the host's init"))
    if not targets:
        findings.stopped("no process outside the sandbox is visible")
    for pid, who in targets:
        try:
            os.kill(pid, 0)
        except OSError as exc:
            findings.stopped(f"signal 0 to {who}", exc)
        else:
            findings.got(f"may send signals to {who} (pid {pid}; signal 0 sent)")


LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
MNT_DETACH = 2
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> int:
    def enc(value: str | None) -> bytes | None:
        return value.encode() if value is not None else None

    if LIBC.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) == 0:
        return 0
    return ctypes.get_errno()


def _private_mount_namespace() -> bool:
    try:
        return os.readlink("/proc/self/ns/mnt") != kit.CONFIG["host_mnt_ns"]
    except OSError:
        return False


def _in_child(action) -> int:
    """Run `action()` (returns an exit code) in a forked child: chroot and unshare stay there."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            code = action()
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def capabilities(findings: kit.Findings) -> None:
    with open("/proc/self/status") as handle:
        status = handle.read()
    effective = next((ln.split()[1] for ln in status.splitlines() if ln.startswith("CapEff")), "?")
    if effective.strip("0") and effective != "?":
        findings.got(f"holds capabilities (CapEff {effective})")
    else:
        findings.stopped(f"CapEff {effective}")
    mountpoint = str(kit.HERE / ".escape-mnt")
    os.makedirs(mountpoint, exist_ok=True)
    failed = _mount(f"selfheal-escape-{kit.MARKER}", mountpoint, "tmpfs", 0, "size=1m")
    if failed:
        findings.stopped("mount a tmpfs", os.strerror(failed))
    else:
        findings.got("mounted a tmpfs (CAP_SYS_ADMIN)")
        LIBC.umount2(mountpoint.encode(), MNT_DETACH)
    if not _private_mount_namespace():
        findings.stopped("in the host's mount namespace: / and /tmp are left alone")
    else:
        if _root_read_only():
            failed = _mount(None, "/", None, MS_REMOUNT | MS_BIND, None)
            if failed:
                findings.stopped("remount / read-write", os.strerror(failed))
            else:
                findings.got("remounted / read-write")
                for path in kit.CONFIG["proofs"]["system"]:
                    kit.proof(findings, "system, after the remount", path + "-remount")
                _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        if LIBC.umount2(b"/tmp", MNT_DETACH) == 0:
            findings.got("unmounted the private /tmp")
            if os.path.exists(kit.CONFIG["bystander"]):
                findings.got("the host's /tmp is visible after unmounting the private one")
        else:
            findings.stopped("umount /tmp", os.strerror(ctypes.get_errno()))
    if _in_child(lambda: (os.chroot(str(kit.HERE)), 0)[1]) == 0:
        findings.got("chroot (CAP_SYS_CHROOT)")
    else:
        findings.stopped("chroot")
    node = str(kit.HERE / ".escape-mem")
    try:
        os.mknod(node, 0o600 | 0o020000, os.makedev(1, 1))
    except OSError as exc:
        findings.stopped("mknod /dev/mem's twin", exc)
    else:
        findings.got("created a device node (CAP_MKNOD)")
        os.unlink(node)
    try:
        socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close()
    except OSError as exc:
        findings.stopped("raw socket", exc)
    else:
        findings.got("opened a raw socket (CAP_NET_RAW)")


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _root_read_only() -> bool:
    with open("/proc/self/mountinfo") as handle:
        mounts = [line.split() for line in handle]
    return any(fields[4] == "/" and "ro" in fields[5].split(",") for fields in mounts)


def user_namespace(findings: kit.Findings) -> None:
    uid, gid = os.getuid(), os.getgid()
    root_read_only = _root_read_only()
    mountpoint = str(kit.HERE / ".escape-userns-mnt")
    os.makedirs(mountpoint, exist_ok=True)

    def inside() -> int:
        if LIBC.unshare(CLONE_NEWUSER) != 0:
            return 10
        with contextlib.suppress(OSError):
            _write("/proc/self/setgroups", "deny")
        try:
            _write("/proc/self/uid_map", f"0 {uid} 1")
            _write("/proc/self/gid_map", f"0 {gid} 1")
        except OSError:
            return 11
        if LIBC.unshare(CLONE_NEWNS) != 0:
            return 12
        failed = _mount(f"selfheal-escape-{kit.MARKER}", mountpoint, "tmpfs", 0, "size=1m")
        if failed:
            return 100 + min(failed, 150)  # the errno, through the exit status
        # a read-only / made writable from in here would write the real files below it; the
        # mount namespace is this child's own, so the remount itself changes nothing outside
        if root_read_only and _mount(None, "/", None, MS_REMOUNT | MS_BIND, None) == 0:
            return 1
        return 0

    code = _in_child(inside)
    if code == 10:
        findings.stopped("unshare(CLONE_NEWUSER) refused")
        return
    findings.got("created a user namespace")
    if code in (0, 1):
        findings.got("became root in it and mounted a tmpfs")
        if code == 1:
            findings.got("remounted / read-write inside it")
        elif root_read_only:
            findings.stopped("remounting / read-write inside it")
    else:
        why = {11: "no uid map", 12: "no mount namespace", 99: "crashed"}.get(code)
        findings.stopped("inside the new user namespace", why or f"mount: {os.strerror(code - 100)}")


def devices(findings: kit.Findings) -> None:
    try:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        try:
            record = os.read(fd, 512)
        finally:
            os.close(fd)
    except OSError as exc:
        findings.stopped("/dev/kmsg", exc)
    else:
        findings.got(f"read the kernel log (/dev/kmsg, {len(record)} bytes)")
    disks = ["/dev/mem"]
    with contextlib.suppress(OSError):
        disks += [
            f"/dev/{name}"
            for name in sorted(os.listdir("/sys/block"))
            if not name.startswith(("loop", "ram", "zram"))
        ]
    for path in disks:
        try:
            with open(path, "rb", buffering=0) as handle:
                data = handle.read(512)
        except OSError as exc:
            findings.stopped(path, exc)
            continue
        findings.got(f"read {len(data)} bytes of {path}", host_file=path, n=len(data), sha=kit.sha(data))
