"""What the host watches while a case runs and looks at after it: listeners, processes, mounts,
secrets in outputs, the machine's addresses."""

from __future__ import annotations

import base64
import contextlib
import ctypes
import ctypes.util
import hashlib
import itertools
import os
import secrets
import signal
import socket
import threading
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path


@dataclass
class Hit:
    kind: str  # tcp | udp | abstract
    peer: str
    payload: str


@dataclass
class Listeners:
    """A TCP and a UDP listener on every host address and an abstract unix socket, for one case."""

    marker: str
    hits: list[Hit] = field(default_factory=list)
    tcp_port: int = 0
    udp_port: int = 0
    abstract: str = ""

    def __enter__(self) -> Listeners:
        self._stop = threading.Event()
        self._tcp = socket.socket()
        self._tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._tcp.bind(("0.0.0.0", 0))
        self._tcp.listen(16)
        self._tcp.settimeout(0.2)
        self.tcp_port = self._tcp.getsockname()[1]
        self._udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._udp.bind(("0.0.0.0", 0))
        self._udp.settimeout(0.2)
        self.udp_port = self._udp.getsockname()[1]
        self.abstract = f"selfheal-escape-{self.marker}-{secrets.token_hex(3)}"
        self._unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._unix.bind("\0" + self.abstract)
        self._unix.listen(4)
        self._unix.settimeout(0.2)
        self._threads = [
            threading.Thread(target=self._accept, args=(self._tcp, "tcp"), daemon=True),
            threading.Thread(target=self._accept, args=(self._unix, "abstract"), daemon=True),
            threading.Thread(target=self._datagrams, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        return self

    def _accept(self, server: socket.socket, kind: str) -> None:
        while not self._stop.is_set():
            try:
                conn, peer = server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    payload = conn.recv(200).decode("utf-8", "replace").strip()
                except OSError:
                    payload = ""
            self.hits.append(Hit(kind, str(peer[0] if isinstance(peer, tuple) else "unix"), payload))

    def _datagrams(self) -> None:
        while not self._stop.is_set():
            try:
                data, peer = self._udp.recvfrom(256)
            except OSError:
                continue
            self.hits.append(Hit("udp", peer[0], data.decode("utf-8", "replace")))
            with contextlib.suppress(OSError):
                self._udp.sendto(b"ack " + data[:64], peer)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(2)
        for sock in (self._tcp, self._udp, self._unix):
            sock.close()


@cache
def host_addresses() -> tuple[str, ...]:
    """127.0.0.1 and the machine's other IPv4 addresses (the docker bridge's gateway among them)."""
    found = ["127.0.0.1"]
    try:
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
    except OSError:
        return tuple(found)
    for previous, line in itertools.pairwise(lines):
        if "/32 host LOCAL" in line:
            address = previous.split()[-1]
            if not address.startswith("127.") and address not in found:
                found.append(address)
    return tuple(found[:5])


@cache
def resolvable_name() -> str:
    """A name the host itself resolves, or "" where it resolves none (then DNS proves nothing)."""
    result: list[str] = []

    def attempt() -> None:
        for name in ("pypi.org", "github.com", "example.com"):
            try:
                socket.getaddrinfo(name, 443)
            except OSError:
                continue
            result.append(name)
            return

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(6)
    return result[0] if result else ""


def cmdline(pid: int | str) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def marked_processes(marker: str) -> list[tuple[int, str]]:
    """Processes the case's attack started: the marker is one whole argument of theirs. (Only a
    whole argument: another session's bubblewrap may name a proof file, which holds the marker,
    among its bind mounts, and that process is not ours to judge or to kill.)"""
    needle, me = marker.encode(), os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != me:
            command = cmdline(entry)
            if needle in command.split(b"\0"):
                found.append((int(entry), command.replace(b"\0", b" ").decode("utf-8", "replace")[:120]))
    return found


def kill_processes(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def marked_mounts(marker: str) -> list[str]:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    return [line.split()[4] for line in lines if marker in line]


def unmount(paths: list[str]) -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    for path in paths:
        libc.umount2(path.encode(), 2)  # MNT_DETACH


def short_hash(value: str | bytes) -> str:
    """The attack code's hash of what it found (escape_kit.sha)."""
    data = value.encode() if isinstance(value, str) else value
    return hashlib.sha256(data).hexdigest()[:16]


def encodings(value: str) -> dict[str, str]:
    """A secret as it could appear in text: raw, hex, and base64 at each of the three alignments."""
    raw = value.encode()
    found = {"raw": value, "hex": raw.hex(), "HEX": raw.hex().upper()}
    for pad in range(3):
        for label, encode in (("base64", base64.b64encode), ("base64url", base64.urlsafe_b64encode)):
            text = encode(b"\0" * pad + raw).decode().rstrip("=")
            middle = text[(pad * 4 + 2) // 3 : len(text) - 2]
            if len(middle) >= 12:
                found[f"{label}+{pad}"] = middle
    return found


def find_secrets(canaries: dict[str, str], texts: dict[str, bytes]) -> list[str]:
    """Where each canary shows up, in any of its encodings."""
    found = []
    for name, value in canaries.items():
        seen: set[str] = set()
        for label, encoded in encodings(value).items():
            if encoded in seen:  # base64 and base64url agree where the value has no + or /
                continue
            seen.add(encoded)
            for where, text in texts.items():
                if encoded.encode() in text:
                    found.append(f"{name} ({label}) in {where}")
    return found


def read_outputs(folder: Path, limit: int = 64 << 20) -> dict[str, bytes]:
    """Every regular file of the output folder (links not followed), capped per file."""
    texts: dict[str, bytes] = {}
    if not folder.is_dir():
        return texts
    for dirpath, _dirnames, filenames in os.walk(folder):
        for name in filenames:
            path = Path(dirpath, name)
            if path.is_symlink() or not path.is_file():
                texts[str(path.relative_to(folder))] = b""
                continue
            with open(path, "rb") as handle:
                texts[str(path.relative_to(folder))] = handle.read(limit)
    return texts


def folder_size(folder: Path) -> int:
    total = 0
    for dirpath, _dirnames, filenames in os.walk(folder):
        for name in filenames:
            with contextlib.suppress(OSError):
                total += Path(dirpath, name).lstat().st_size
    return total


def marked_entries(folders: list[str], marker: str) -> list[str]:
    """Entries named with the marker directly in the machine's shared folders."""
    found = []
    for folder in folders:
        with contextlib.suppress(OSError):
            found += [os.path.join(folder, n) for n in os.listdir(folder) if marker in n]
    return found
