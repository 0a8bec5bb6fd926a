"""Family `network`: listeners the harness opened on the host, DNS, the Docker engine's socket.

The harness listens on TCP and UDP (every host address, one port each) and on an abstract unix
socket, and counts what reaches them; every connection sends the case's marker. Where report.json
says `sandbox.network: true`, a connection is exposure as stated, not an escape; the Docker socket
is root on the host whatever the network says. Copied into the case's repository as
escape_attacks.py; runs inside the sandbox (net-setup also during the docker backend's dependency
setup, as the project's in-tree build backend). net-setup-index attacks with its requirements.txt,
which the harness writes once it knows its listeners: an index on them, for the setup's pip.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import socket
import sys
import zipfile
from pathlib import Path

import escape_kit as kit

FAMILY = "network"
CASES = [
    {
        "id": "net-tcp",
        "title": "TCP to the harness's listener on 127.0.0.1 and on the host's other addresses",
        "attack": "tcp",
        "network": True,
    },
    {
        "id": "net-udp",
        "title": "a UDP datagram to the harness's listener (which answers it)",
        "attack": "udp",
        "network": True,
    },
    {
        "id": "net-dns",
        "title": "DNS: resolving a name the host resolves, and a raw query to its nameserver",
        "attack": "dns",
        "network": True,
    },
    {
        "id": "net-docker-socket",
        "title": "the Docker engine's socket (/var/run/docker.sock): GET /_ping, nothing more",
        "attack": "docker_socket",
    },
    {
        "id": "net-abstract-unix",
        "title": "an abstract unix socket the harness listens on (shared per network namespace)",
        "attack": "abstract_unix",
        "network": True,
    },
    {
        "id": "net-setup",
        "title": "the project's own build backend, run by the dependency setup (the one step with network)",
        "attack": "setup_findings",
        "network": True,
        "pyproject": (
            '[project]\nname = "escape-victim"\nversion = "0.0.0"\ndynamic = ["dependencies"]\n\n'
            '[build-system]\nrequires = []\nbuild-backend = "escape_attacks"\nbackend-path = ["."]\n'
        ),
    },
    {
        "id": "net-setup-index",
        "title": "requirements.txt names the harness's listener as a package index for a package only "
        "it would have, for the dependency setup's pip (the one step with network)",
        "attack": "no_setup_here",
        "requirements": (
            "--extra-index-url http://{host}:{tcp_port}/{marker}/simple --trusted-host {host}\n"
            "escape-victim-only-on-the-listener\n"
        ),
    },
]


def _connect(findings: kit.Findings, host: str, port: int, when: str = "") -> None:
    try:
        with socket.create_connection((host, port), timeout=2) as conn:
            conn.sendall(f"{when}{kit.MARKER}\n".encode())
    except OSError as exc:
        findings.stopped(f"{when}tcp {host}:{port}", exc)
    else:
        findings.got(f"{when}connected to the host's listener at {host}:{port}", net=True)


def tcp(findings: kit.Findings) -> None:
    for host in kit.CONFIG["host_addresses"]:
        _connect(findings, host, kit.CONFIG["tcp_port"])


def udp(findings: kit.Findings) -> None:
    for host in kit.CONFIG["host_addresses"]:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.settimeout(1.5)
            try:
                sock.sendto(kit.MARKER.encode(), (host, kit.CONFIG["udp_port"]))
                answer, _ = sock.recvfrom(256)
            except OSError as exc:
                findings.stopped(f"udp {host}", exc)
                continue
            if answer.startswith(b"ack"):
                findings.got(f"a datagram reached the host's listener at {host} and came back", net=True)


def _nameservers() -> list[str]:
    try:
        lines = Path("/etc/resolv.conf").read_text().splitlines()
    except OSError:
        return []
    return [line.split()[1] for line in lines if line.startswith("nameserver") and len(line.split()) > 1]


def _query(name: str) -> bytes:
    header = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
    labels = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\x00"
    return header + labels + b"\x00\x01\x00\x01"


def dns(findings: kit.Findings) -> None:
    name = kit.CONFIG["dns_name"]
    if not name:
        findings.stopped("the host resolves no name either: nothing to compare")
    else:
        try:
            addresses = {a[4][0] for a in socket.getaddrinfo(name, 443, type=socket.SOCK_STREAM)}
        except OSError as exc:
            findings.stopped(f"getaddrinfo {name}", exc)
        else:
            findings.got(f"resolved {name} to {sorted(addresses)[:2]}", net=True)
    for server in _nameservers()[:2]:
        with socket.socket(socket.AF_INET6 if ":" in server else socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.settimeout(1.5)
            try:
                sock.sendto(_query(name or "example.com"), (server, 53))
                answer, _ = sock.recvfrom(512)
            except OSError as exc:
                findings.stopped(f"udp query to {server}:53", exc)
                continue
            if answer[:2] == b"\x12\x34":
                findings.got(f"the nameserver {server} answered a raw query", net=True)


def docker_socket(findings: kit.Findings) -> None:
    for path in ("/var/run/docker.sock", "/run/docker.sock", kit.CONFIG.get("docker_socket", "")):
        if not path:
            continue
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(3)
            try:
                sock.connect(path)
                sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
                answer = sock.recv(512)
            except OSError as exc:
                findings.stopped(f"connect {path}", exc)
                continue
            if b"200 OK" in answer or answer.rstrip().endswith(b"OK"):
                findings.got(f"the Docker engine answered /_ping on {path}: root on the host")
                return
            findings.stopped(f"{path} connected but did not answer /_ping")


def abstract_unix(findings: kit.Findings) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2)
        try:
            sock.connect("\0" + kit.CONFIG["abstract_socket"])
            sock.sendall(kit.MARKER.encode() + b"\n")
        except OSError as exc:
            findings.stopped("abstract socket", exc)
        else:
            findings.got("connected to the host's abstract unix socket", net=True)


def no_setup_here(findings: kit.Findings) -> None:
    """net-setup-index at test time. Its attack is requirements.txt, which only a dependency setup
    reads: the docker backend's (which refuses it, so no test runs there); the harness's listeners
    count what the setup's pip reached. Where the tests do run, no setup read it."""
    findings.stopped("the tests run: no dependency setup handed requirements.txt to pip here")


# -- net-setup: the project's build backend, run by `pip install .` in the dependency setup -------
SETUP_FINDINGS = ".escape-setup.json"


def _findings_folders() -> list[Path]:
    """Where the setup can leave its findings for the tests: the workspace, or the virtual environment
    it installs into (the tests' interpreter is that environment's)."""
    folders = [kit.HERE]
    for prefix in (os.environ.get("VIRTUAL_ENV"), sys.prefix):
        if prefix:
            folders.append(Path(prefix))
    return list(dict.fromkeys(folders))


def setup_findings(findings: kit.Findings) -> None:
    """At test time: what the build backend achieved during the setup, if a setup ran it."""
    found = [p / SETUP_FINDINGS for p in _findings_folders() if (p / SETUP_FINDINGS).is_file()]
    if not found:
        findings.stopped("no dependency setup ran the project's build backend (or its findings were lost)")
        return
    setup = json.loads(found[0].read_text())
    findings.achieved += setup["achieved"]
    findings.blocked += setup["blocked"]


def _in_setup() -> None:
    findings = kit.Findings()
    for host in kit.CONFIG["host_addresses"]:
        _connect(findings, host, kit.CONFIG["tcp_port"], when="during the dependency setup: ")
    try:
        socket.getaddrinfo(kit.CONFIG["dns_name"] or "example.com", 443)
    except OSError as exc:
        findings.stopped("setup dns", exc)
    else:
        findings.got("resolved a name during the dependency setup", net=True)
    for folder in _findings_folders():
        with contextlib.suppress(OSError):
            (folder / SETUP_FINDINGS).write_text(
                json.dumps({"achieved": findings.achieved, "blocked": findings.blocked})
            )


def get_requires_for_build_wheel(config_settings=None):
    _in_setup()
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """An empty but valid wheel, so the setup succeeds and the heal goes on to the tests."""
    name, info = "escape_victim-0.0.0-py3-none-any.whl", "escape_victim-0.0.0.dist-info"
    files = {
        f"{info}/METADATA": b"Metadata-Version: 2.1\nName: escape-victim\nVersion: 0.0.0\n",
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: escape\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as wheel:
        for path, data in files.items():
            wheel.writestr(path, data)
    return name
