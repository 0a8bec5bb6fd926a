"""Family `resources`: memory, disk, an output flood, GitHub workflow commands, and a repository whose
own [tool.selfheal] loosens the sandbox.

Bounded so they stay harmless where nothing else bounds them: memory stops at 3 GiB, disk at 3 GB
(100 MB files, held a few seconds, then deleted), the flood at 200 MB, the fork count at 600.
Copied into the case's repository as escape_attacks.py; runs inside the sandbox.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time

import escape_kit as kit

FAMILY = "resources"
CASES = [
    {
        "id": "res-memory",
        "title": "allocating 3 GiB, past the 2 GiB memory limit",
        "attack": "memory",
    },
    {
        "id": "res-disk",
        "title": "3 GB into the workspace in 100 MB files, held for 3 s (past any sensible workspace limit)",
        "attack": "disk",
    },
    {
        "id": "res-output-flood",
        "title": "200 MB on the real stdout and stderr, past pytest's capture",
        "attack": "output_flood",
    },
    {
        "id": "res-workflow-commands",
        "title": "GitHub workflow commands (::add-mask::, ::set-output::, ::stop-commands::, ::error::) in "
        "every output",
        "attack": "workflow_commands",
        "each_run": "workflow_commands_again",
    },
    {
        "id": "res-workflow-commands-error",
        "title": "workflow commands in the error of a conftest.py that fails to import, as selfheal shows it",
        "attack": "workflow_commands",
        # the baseline cannot run, so the case's report cannot ride in a test id: the marker in the
        # error report.json quotes says it ran
        "conftest": (
            "raise RuntimeError('escape corpus ' + escape_kit.MARKER + '\\n::set-output name=status::healed"
            "\\n::error::a workflow command from conftest.py\\n::stop-commands::escape\\n')\n"
        ),
    },
    {
        "id": "res-config-namespaces-off",
        "title": "the repository's own [tool.selfheal] turns the namespaces off (namespaces = false)",
        "attack": "config_namespaces_off",
        "selfheal_config": "namespaces = false\n",
        "asks_isolation": True,
    },
    {
        "id": "res-python-version-no-image",
        "title": "the repository's .python-version names a Python no image has (3.99), to push the heal "
        "down to a weaker sandbox",
        "attack": "config_namespaces_off",
        "python_version": "3.99",
        "asks_isolation": True,
    },
    {
        "id": "res-config-limits-lifted",
        "title": "the repository's own [tool.selfheal] lifts the memory, process and disk limits",
        "attack": "config_limits_lifted",
        "selfheal_config": "memory-mb = 65536\nmax-processes = 5000\ndisk-mb = 1000000\n",
    },
]

ALLOCATE = """
import sys
chunks, step = [], 128
target = int(sys.argv[2])
while len(chunks) * step < target:
    chunks.append(b"\\1" * (step << 20))  # filled, so the pages are really touched
    print(len(chunks) * step, flush=True)
"""


def _allocate(findings: kit.Findings, megabytes: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", ALLOCATE, kit.MARKER, str(megabytes)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = proc.stdout.split()
    reached = int(lines[-1]) if lines else 0
    if reached >= megabytes:
        findings.got(f"allocated {reached} MiB: no memory limit stopped it")
    else:
        how = (
            f"signal {-proc.returncode}"
            if proc.returncode < 0
            else (proc.stderr.strip().splitlines() or ["?"])[-1]
        )
        findings.stopped(f"stopped at {reached} MiB", how)


def memory(findings: kit.Findings) -> None:
    _allocate(findings, 3072)


def disk(findings: kit.Findings, total_mb: int = 3000, file_mb: int = 100) -> None:
    folder = kit.HERE / ".escape-disk"
    folder.mkdir(exist_ok=True)
    written, error = 0, ""
    try:
        while written < total_mb:
            path = folder / f"fill-{written // file_mb:03d}"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                try:
                    os.posix_fallocate(fd, 0, file_mb << 20)
                except OSError as exc:
                    if exc.errno not in (95,):  # EOPNOTSUPP: write it out instead
                        raise
                    block = b"\0" * (1 << 20)
                    for _ in range(file_mb):
                        os.write(fd, block)
            finally:
                os.close(fd)
            written += file_mb
        time.sleep(3)  # held long enough for anything that watches the workspace to see it
    except OSError as exc:
        error = kit.describe(exc)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if written >= total_mb:
        findings.got(f"held {written} MB in the workspace for 3 s: nothing limited its size")
    else:
        findings.stopped(f"stopped at {written} MB", error)


FLOOD = """
import os, sys
total, block = int(sys.argv[2]) << 20, b"A" * (1 << 20)
fds = [int(f) for f in sys.argv[3:]]
sent = 0
while sent < total:
    for fd in fds:
        os.write(fd, block)
    sent += len(block) * len(fds)
print(sent)
"""


def output_flood(findings: kit.Findings) -> None:
    fds = kit.raw_stdout_fds() or [1, 2]
    try:
        done = subprocess.run(
            [sys.executable, "-c", FLOOD, kit.MARKER, "200", *map(str, fds)],
            pass_fds=fds, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        findings.stopped(f"flooded {done.stdout.strip() or '?'} bytes onto fds {fds}")
    except subprocess.TimeoutExpired:
        findings.stopped("the flood blocked for 60 s (nobody read it)")


COMMANDS = [
    f"::add-mask::{kit.MARKER}",
    "::set-output name=status::healed",
    "::set-output name=pr-url::https://attacker.example/pr",
    f"::stop-commands::escape{kit.MARKER}",
    "::error title=selfheal::escape corpus: a workflow command from the tests",
    "::warning::escape corpus",
    "::group::escape corpus",
]


def _print_commands() -> None:
    text = "\n" + "\n".join(COMMANDS) + "\n"
    print(text, flush=True)
    print(text, file=sys.stderr, flush=True)
    for fd in kit.raw_stdout_fds():
        try:
            os.write(fd, text.encode())
        except OSError:
            pass


def workflow_commands(findings: kit.Findings) -> None:
    _print_commands()
    findings.leaked.append("\n".join(["workflow commands follow", *COMMANDS]))
    findings.stopped("printed workflow commands to stdout, stderr and the failure message")


def workflow_commands_again() -> None:
    """Later runs print them again, then crash with them as their last output, in case selfheal
    shows a crashed run's output."""
    import atexit

    _print_commands()
    atexit.register(lambda: (_print_commands(), os._exit(3)))


def config_namespaces_off(findings: kit.Findings) -> None:
    """Where the repository's file switched bubblewrap off, the host's listeners are in reach."""
    targets = [
        ("the host's TCP listener on 127.0.0.1", socket.AF_INET, ("127.0.0.1", kit.CONFIG["tcp_port"])),
        ("the host's abstract unix socket", socket.AF_UNIX, "\0" + kit.CONFIG["abstract_socket"]),
    ]
    for label, family, address in targets:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(2)
            try:
                sock.connect(address)
                sock.sendall(kit.MARKER.encode() + b"\n")
            except OSError as exc:
                findings.stopped(label, exc)
            else:
                findings.got(f"connected to {label}", net=True)


def config_limits_lifted(findings: kit.Findings) -> None:
    _allocate(findings, 3072)
    disk(findings)
    count, error = kit.fork_count(600)
    if count >= 600:
        findings.got(f"forked {count} processes, past the default limit of 256")
    else:
        findings.stopped(f"stopped after {count} processes", error or "no reason given")
