"""Family `secrets`: the canary secrets selfheal was started with, through the environment and /proc.

The harness starts selfheal with canary values in GITHUB_TOKEN, ANTHROPIC_API_KEY and
SELFHEAL_TEST_SECRET. Every value that looks like a secret is reported by hash (the host says
whether it was a canary) and, raw and encoded, put into the failing test's message, so a secret
that reached the sandbox must still not reach selfheal's outputs. Copied into the case's repository
as escape_attacks.py; runs inside the sandbox.
"""

from __future__ import annotations

import os

import escape_kit as kit

FAMILY = "secrets"
CASES = [
    {
        "id": "secrets-env",
        "title": "the canary secrets in the test process's own environment",
        "attack": "own_environment",
    },
    {
        "id": "secrets-proc-environ",
        "title": "every /proc/*/environ and /proc/*/cmdline the tests can open",
        "attack": "proc_environ",
    },
    {
        "id": "secrets-proc-mem",
        "title": "selfheal's memory through /proc/<pid>/mem (ptrace access), and its environ",
        "attack": "selfheal_memory",
    },
]


def own_environment(findings: kit.Findings) -> None:
    for name, value in os.environ.items():
        for found in kit.secrets_in(f"{name}={value}".encode()):
            findings.secret(found, f"os.environ[{name}]")
    try:
        with open("/proc/self/environ", "rb") as handle:
            block = handle.read()
    except OSError as exc:
        findings.stopped("/proc/self/environ", exc)
        return
    for found in kit.secrets_in(block):
        findings.secret(found, "/proc/self/environ")
    if not findings.achieved:
        findings.stopped(f"{len(os.environ)} variables, none secret-looking")


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def proc_environ(findings: kit.Findings) -> None:
    readable, denied = 0, 0
    for pid in _pids():
        command = _cmdline(pid).replace(b"\0", b" ")[:60].decode("utf-8", "replace")
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as handle:
                    block = handle.read()
            except OSError:
                denied += 1
                continue
            readable += part == "environ"
            for found in kit.secrets_in(block):
                findings.secret(found, f"/proc/{pid}/{part} ({command})")
    findings.stopped(f"environ of {readable} processes readable, {denied} files denied")


def selfheal_processes() -> list[tuple[int, str]]:
    """Processes that look like selfheal itself: their command line names the origin repository."""
    origin = kit.CONFIG["origin"].encode()
    found = []
    for pid in _pids():
        command = _cmdline(pid)
        if origin in command and b"selfheal" in command:
            found.append((pid, command.replace(b"\0", b" ")[:80].decode("utf-8", "replace")))
    return found


def selfheal_memory(findings: kit.Findings) -> None:
    targets = selfheal_processes()
    if not targets:
        findings.stopped("selfheal's process is not visible from the sandbox")
    budget = 256 * 1024 * 1024  # bytes read at most, over all regions
    for pid, command in targets:
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                block = handle.read()
            findings.got(f"read selfheal's environment (/proc/{pid}/environ, {command})")
            for found in kit.secrets_in(block):
                findings.secret(found, f"selfheal's /proc/{pid}/environ")
        except OSError as exc:
            findings.stopped(f"/proc/{pid}/environ", exc)
        try:
            with open(f"/proc/{pid}/maps") as handle:
                maps = handle.read().splitlines()
            memory = open(f"/proc/{pid}/mem", "rb", buffering=0)  # noqa: SIM115 (closed below)
        except OSError as exc:
            findings.stopped(f"/proc/{pid}/mem", exc)
            continue
        read = 0
        with memory:
            for line in maps:
                fields = line.split()
                if len(fields) < 2 or not fields[1].startswith("rw"):
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                while start < end and read < budget:
                    size = min(end - start, 16 * 1024 * 1024)
                    try:
                        memory.seek(start)
                        chunk = memory.read(size)
                    except (OSError, OverflowError, ValueError):
                        break
                    start += size
                    read += len(chunk)
                    for found in kit.secrets_in(chunk, by_name=False):
                        findings.secret(found, f"selfheal's memory (pid {pid})")
        if read:
            findings.got(f"read {read // 1024} KiB of selfheal's memory (/proc/{pid}/mem, {command})")
        else:
            findings.stopped(f"/proc/{pid}/mem: no region readable")
