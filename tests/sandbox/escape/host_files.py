"""Family `host-files`: reading root-only files, writing outside the workspace.

Reads report a hash of what they read (the host compares it with the real file); writes create a
proof file at a path the harness chose (`proofs` in escape_config.json) and removes after the
heal, never touching an existing file. Copied into the case's repository as escape_attacks.py;
runs inside the sandbox.
"""

from __future__ import annotations

import os

import escape_kit as kit

FAMILY = "host-files"
CASES = [
    {
        "id": "files-read-root-only",
        "title": "reading /etc/shadow, a 0600 canary file, and a file inside a 0700 folder",
        "attack": "read_root_only",
    },
    {
        "id": "files-read-operator-state",
        "title": "reading a service's key, queue database and settings in /etc, /var/lib and /opt, and "
        "another job's report, each readable by its mode",
        "attack": "read_operator_state",
    },
    {
        "id": "files-write-origin-outputs",
        "title": "writing into the origin repository (and its .git) and selfheal's output folder",
        "attack": "write_origin_outputs",
    },
    {
        "id": "files-write-install",
        "title": "writing into the Python and selfheal installation that runs the heal",
        "attack": "write_install",
    },
    {
        "id": "files-write-system",
        "title": "writing into /etc and /usr/local/bin",
        "attack": "write_system",
    },
    {
        "id": "files-write-shared-tmp",
        "title": "writing into the machine's world-writable /tmp, /var/tmp and /dev/shm",
        "attack": "write_shared_tmp",
    },
]


def _read_host_files(findings: kit.Findings, labelled: list[tuple[str, str]]) -> None:
    """Read each (label, path) and report a hash of what was read, for the host to compare."""
    for label, path in labelled:
        try:
            with open(path, "rb") as handle:
                data = handle.read(1 << 20)
        except OSError as exc:
            findings.stopped(f"read {label}", exc)
            continue
        findings.got(
            f"read {label} ({path}, {len(data)} bytes)", host_file=path, n=len(data), sha=kit.sha(data)
        )
        for found in kit.secrets_in(data):
            findings.secret(found, label)


def read_root_only(findings: kit.Findings) -> None:
    _read_host_files(findings, [
        ("/etc/shadow", "/etc/shadow"),
        ("the 0600 canary file", kit.CONFIG["canary_file"]),
        ("a file in a 0700 folder", kit.CONFIG["private_file"]),
    ])  # fmt: skip


def read_operator_state(findings: kit.Findings) -> None:
    _read_host_files(findings, [("an operator's file", path) for path in kit.CONFIG["operator_files"]])


def _write_proofs(findings: kit.Findings, *labels: str) -> None:
    for label in labels:
        for path in kit.CONFIG["proofs"].get(label, []):
            folder = os.path.dirname(path)
            if not os.path.isdir(folder):
                try:
                    os.makedirs(folder)  # selfheal creates its output folder only at the end
                except OSError as exc:
                    findings.stopped(f"mkdir {label}", exc)
                    continue
            kit.proof(findings, label, path)


def write_origin_outputs(findings: kit.Findings) -> None:
    _write_proofs(findings, "origin", "outputs")


def write_install(findings: kit.Findings) -> None:
    _write_proofs(findings, "install")


def write_system(findings: kit.Findings) -> None:
    _write_proofs(findings, "system")


def write_shared_tmp(findings: kit.Findings) -> None:
    _write_proofs(findings, "shared-tmp")
