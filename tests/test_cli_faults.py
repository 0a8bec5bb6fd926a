"""`selfheal heal` under faults around it: its output folder on a disk that fills up, and SIGTERM
or SIGINT while it heals. Each ends with one clear line and an exit code, no traceback, no
report.json that looks whole but is not, and nothing of the sandbox left running; a heal the
signal stopped writes the report of what it tried before it exits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.test_heal_hangs import DEFIANT
from tests.conftest import report_errors
from tests.test_cli import BUGGY, status_porcelain

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small-disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _heal(repo: Path, out: Path, cwd: Path, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "selfheal", "heal", str(repo), "--out", str(out), "--sandbox", "local",
         *flags],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TMPDIR": str(cwd)},
        # Ctrl-C reaches Python as KeyboardInterrupt only when SIGINT is not ignored at its start
        # (a background job's is)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def test_a_full_output_disk_is_a_clear_error_with_no_report(make_repo, small_disk: Path, tmp_path: Path):
    repo = make_repo(BUGGY)
    proc = _heal(repo, small_disk / "out", tmp_path)
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    assert "selfheal: could not write the output folder" in err and "No space left on device" in err
    assert "report.json was not written" in err
    assert not (small_disk / "out" / "report.json").exists()
    assert not list((small_disk / "out").glob(".report.json.*"))
    assert status_porcelain(repo) == ""


def _sandbox_processes(under: Path) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            if str(under) in cmdline or cwd.startswith(str(under)):
                found.append(f"{entry.name}: {cmdline[:120]}")
    return found


def test_sigterm_while_healing_stops_cleanly_with_143(make_repo, tmp_path: Path):
    repo = make_repo(BUGGY)
    work = tmp_path / "work"
    work.mkdir()
    work.chmod(0o755)
    proc = _heal(repo, tmp_path / "out", work)
    deadline = time.monotonic() + 120
    while not list(work.glob("selfheal-ws-*/repo")) and time.monotonic() < deadline:
        time.sleep(0.1)  # the sandbox's copy exists: the heal is under way
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert err.splitlines()[-1].startswith("selfheal: stopped by SIGTERM")
    assert err.splitlines()[-1].endswith("the repository was not changed")
    report = tmp_path / "out" / "report.json"
    assert not report.exists() or json.loads(report.read_text())["status"]
    assert status_porcelain(repo) == ""
    time.sleep(0.5)
    assert _sandbox_processes(work) == []
    assert not list(work.glob("selfheal-ws-*")), "the sandbox's workspace copy was left behind"


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_mid_heal_writes_the_report_of_what_was_tried(make_repo, tmp_path: Path, signum, code):
    repo = make_repo(DEFIANT)  # a test that hangs where no per-test limit can stop it
    work = tmp_path / "work"
    work.mkdir()
    work.chmod(0o755)
    out = tmp_path / "out"
    proc = _heal(repo, out, work, "--max-minutes", "10")
    deadline = time.monotonic() + 120
    started = "selfheal-ws-*/repo/.selfheal-sandbox/runs/records-1.jsonl"
    while not list(work.glob(started)) and time.monotonic() < deadline:
        time.sleep(0.1)  # the baseline has started, and hangs
    assert list(work.glob(started)), "the heal never started its baseline"
    time.sleep(1.0)
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=120)

    name = signal.Signals(signum).name
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert f"selfheal: stopped by {name}; report: {out / 'report.json'}" in err
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report_errors(report) == []
    assert report["status"] == "not_healed"
    assert report["error"].startswith(f"the heal was stopped by {name}; the report holds what was tried")
    assert (out / "trace.jsonl").read_text(encoding="utf-8").count('"node": "sandbox"') == 1
    assert status_porcelain(repo) == ""
    time.sleep(0.5)
    assert _sandbox_processes(work) == []
