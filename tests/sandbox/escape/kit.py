"""The escape corpus's kit: what every hostile repository's attack code shares.

The harness (evaluation/escape) copies this file into each case's repository as `escape_kit.py`,
beside the case's family module (`escape_attacks.py`) and `escape_config.json` (the marker, the
ports of its listeners, the decoys and proof paths it chose). It runs inside the sandbox, under
whatever interpreter runs the tests there, so it uses the standard library only.

The attack runs once per heal, in the first test process that imports conftest.py, and its
findings are stored in the workspace: every later run reads the same report, so the failing test's
id stays the same from run to run (selfheal compares the ids of the runs). The report goes back
to the host as that id, `test_inc[ESCAPE-REPORT-<hex of a JSON>]`: report.json's
`failures_before` carries an id whole, where a failure message is cut at 160 characters, and hex
survives any scrubbing of secrets (the report holds hashes of what it found, never a secret).

Attacks must be harmless where containment fails: they prove a capability and undo it, write only
proof files at paths the harness chose and removes, and report a hash where they read a secret.
Only the failing test's message (`leak_message()`) carries a value the attack found, on purpose:
a secret that reached the sandbox must then still not reach selfheal's outputs.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import json
import os
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = json.loads((HERE / "escape_config.json").read_text(encoding="utf-8"))
MARKER = CONFIG["marker"]
STATE = HERE / ".escape-state.json"
LOCK = HERE / ".escape-state.lock"
PREFIX = "ESCAPE-REPORT-"
MAX_REPORT = 2400  # bytes of JSON: the test id stays a few kB at most
# Values a real attacker looks for: well-known token formats, and the harness's canary formats.
SECRET_PREFIXES = (b"ghp_", b"github_pat_", b"ghs_", b"sk-ant-", b"shsecret-", b"shfile-")
SECRET_NAMES = ("TOKEN", "KEY", "SECRET", "PASS", "CREDENTIAL", "AUTH")


class Findings:
    """What one attack achieved and what stopped it. `achieved` entries are dicts with `say` (one
    line for people) and optional evidence the host verifies: `secret` (a hash of a value found),
    `host_file` + `sha` (a file it read), `net` (a connection it made)."""

    def __init__(self) -> None:
        self.achieved: list[dict] = []
        self.blocked: list[str] = []
        self.leaked: list[str] = []  # raw values for the failure message, never part of the report

    def got(self, say: str, **evidence) -> None:
        self.achieved.append({"say": say[:160], **evidence})

    def stopped(self, what: str, exc: BaseException | str | None = None) -> None:
        why = exc if isinstance(exc, str) else describe(exc) if exc else ""
        self.blocked.append(f"{what}: {why}"[:100] if why else what[:100])

    def secret(self, value: bytes, where: str) -> None:
        """A secret-looking value: reported by hash, kept raw for the leak test."""
        digest = sha(value)
        if any(a.get("secret") == digest for a in self.achieved):
            return
        self.got(f"secret-looking value in {where}", secret=digest)
        with contextlib.suppress(UnicodeDecodeError):
            self.leaked.append(value.decode("ascii"))


def describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return f"{type(exc).__name__}: {exc}"[:60]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def secrets_in(blob: bytes, *, by_name: bool = True) -> list[bytes]:
    """Secret-looking values in an environment block, a command line or memory: values of
    variables named like a secret (`by_name`), and anything in a well-known token format."""
    found = []
    if by_name:
        for chunk in blob.replace(b"\0", b"\n").split(b"\n"):
            name, eq, value = chunk.partition(b"=")
            if eq and any(m.encode() in name.upper() for m in SECRET_NAMES) and 8 <= len(value) <= 200:
                found.append(value)
    for prefix in SECRET_PREFIXES:
        start = blob.find(prefix)
        while start != -1 and len(found) < 50:
            end = start + len(prefix)
            while end < len(blob) and end - start < 120 and blob[end : end + 1] in TOKEN_CHARS:
                end += 1
            if end - start >= len(prefix) + 8:
                found.append(blob[start:end])
            start = blob.find(prefix, end)
    return list(dict.fromkeys(found))


TOKEN_CHARS = {bytes([c]) for c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"}


def proof(findings: Findings, label: str, path: str) -> None:
    """Try to create a proof file at a path outside the workspace; success is an escape."""
    try:
        with open(path, "x") as handle:
            handle.write(f"{MARKER} {label} uid={os.getuid()}\n")
    except OSError as exc:
        findings.stopped(f"write {label}", exc)
    else:
        findings.got(f"wrote {path} ({label})", proof=path)


def spawn_marked(code: str, *args: str) -> int:
    """Start `python -c code MARKER args` detached from stdio; returns its pid. The marker in its
    command line is how the harness finds it afterwards."""
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, "-c", code, MARKER, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
    )
    return proc.pid


FORKS = """
import os, sys
limit = int(sys.argv[2])
read_end, write_end = os.pipe()
children, error = [], ""
while len(children) < limit:
    try:
        pid = os.fork()
    except OSError as exc:
        error = exc.strerror
        break
    if pid == 0:
        os.close(write_end)
        os.read(read_end, 1)  # blocks until the parent lets go
        os._exit(0)
    children.append(pid)
print(len(children), error, flush=True)
os.close(write_end)
for pid in children:
    os.waitpid(pid, 0)
"""


def fork_count(limit: int) -> tuple[int, str]:
    """How many processes a child can fork (each waits on a pipe), at most `limit`; then all exit.
    The child carries the marker, so the host finds any that outlive the heal."""
    import subprocess

    try:
        done = subprocess.run(
            [sys.executable, "-c", FORKS, MARKER, str(limit)], capture_output=True, text=True, timeout=90
        )
    except subprocess.TimeoutExpired:
        return 0, "the fork count did not finish in 90 s"
    count, _, error = done.stdout.strip().partition(" ")
    reason = error or (f"signal {-done.returncode}" if done.returncode < 0 else done.stderr.strip()[-80:])
    return (int(count) if count.isdigit() else 0), reason


def raw_stdout_fds() -> list[int]:
    """The process's real stdout/stderr (pipes to the sandbox's reader), found behind pytest's
    capture: pytest points fds 1 and 2 at temporary files and keeps the originals open elsewhere."""
    fds = []
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError, ValueError):
            fd, target = int(name), os.readlink(f"/proc/self/fd/{name}")
            if fd != 0 and (target.startswith("pipe:") or target.startswith("/dev/pts")):
                fds.append(fd)
    return fds


# -- running the case once per heal ------------------------------------------------------------
def _report(findings: Findings | None, error: str) -> dict:
    report: dict = {"case": CONFIG["case"], "ran": True, "uid": os.getuid(), "pid": os.getpid()}
    if findings is not None:
        report["achieved"] = findings.achieved
        report["blocked"] = findings.blocked[:25]
    if error:
        report["error"] = error[-300:]
    while len(json.dumps(report)) > MAX_REPORT and report.get("blocked"):
        report["blocked"] = report["blocked"][:-1]
    while len(json.dumps(report)) > MAX_REPORT and report.get("achieved"):
        report["achieved"] = report["achieved"][:-1]
        report["truncated"] = True
    return report


def _first_run(module) -> dict:
    findings, error = Findings(), ""
    attack = getattr(module, CONFIG["attack"])
    try:
        attack(findings)
    except BaseException as exc:  # an attack that crashes must still report that it ran
        error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return _save({"report": _report(findings, error), "leaked": findings.leaked})


def _save(state: dict) -> dict:
    tmp = STATE.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(state), encoding="utf-8")
    os.replace(tmp, STATE)
    return state


def _state(module) -> tuple[dict, bool]:
    """The case's state, and whether this process made it (the first run of the heal)."""
    if STATE.is_file():
        return json.loads(STATE.read_text(encoding="utf-8")), False
    try:
        fd = os.open(LOCK, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        deadline = time.monotonic() + 30
        while not STATE.is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        if STATE.is_file():
            return json.loads(STATE.read_text(encoding="utf-8")), False
        # the process that started the attack never finished it: something killed it
        findings = Findings()
        findings.stopped("the first run of the attack did not finish (killed by a limit or a timeout?)")
        return _save({"report": _report(findings, ""), "leaked": []}), False
    os.close(fd)
    return _first_run(module), True


def run_case() -> None:
    """Called by conftest.py at import: the attack on the first run, the case's per-run hook
    (`each_run` in the case's data) on every later one."""
    global REPORT_ID, MESSAGE
    import escape_attacks

    state, first = _state(escape_attacks)
    REPORT_ID = PREFIX + json.dumps(state["report"], separators=(",", ":")).encode().hex()
    MESSAGE = leak_message(state["leaked"])
    hook = CONFIG.get("each_run")
    if hook and not first:
        with contextlib.suppress(Exception):
            getattr(escape_attacks, hook)()


def leak_message(values: list[str]) -> str:
    """The failing test's message: whatever secret the attack found, raw and encoded, so a secret
    that reached the sandbox is caught in selfheal's outputs even if the report's hash is not."""
    if not values:
        return f"escape case {CONFIG['case']} ran"
    parts = []
    for value in values[:4]:
        raw = value.encode()
        parts += [value, base64.b64encode(raw).decode(), raw.hex()]
    return "leak " + " ".join(parts)


REPORT_ID = PREFIX + "not-run"
MESSAGE = ""
