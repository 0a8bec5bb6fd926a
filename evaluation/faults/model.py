"""The `model` family: `selfheal heal --provider anthropic` on the intervals example while the fake
Messages API (tests/fakes/anthropic_server.py, run as its own process) answers every call with the
case's fault. Requirements: exit-code (0, report status healed: the embedded engine took over),
reason (the outputs say why the model stopped), clear-error, report (whole), leftovers; and
next-run: the same heal with the fault gone (no answers left: the search heals after the 400s)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evaluation.faults.cases import ROOT, Case
from evaluation.faults.result import CaseResult
from evaluation.faults.world import intervals_repo, leftovers

KEY = "sk-ant-api03-faultcase-0123456789abcdef"
BOUND_S = 300.0


def _fake(work: Path, steps: list[dict]) -> tuple[subprocess.Popen[bytes], str]:
    folder = work / "claude"
    folder.mkdir()
    (folder / "script.json").write_text(json.dumps({"api_key": KEY, "steps": steps}), encoding="utf-8")
    ready = folder / "ready.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.anthropic_server", "--script", str(folder / "script.json"),
         "--port", "0", "--ready-file", str(ready), "--exit-with-parent"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("the fake Anthropic API did not start")
        time.sleep(0.05)
    return proc, json.loads(ready.read_text(encoding="utf-8"))["url"]


def _heal(work: Path, repo: Path, url: str, out: Path) -> subprocess.CompletedProcess[str]:
    tmp = work / "tmp"
    tmp.mkdir(exist_ok=True)
    tmp.chmod(0o755)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8", "TMPDIR": str(tmp),
           "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url, "NO_PROXY": "127.0.0.1",
           "no_proxy": "127.0.0.1"}  # fmt: skip
    argv = [sys.executable, "-m", "selfheal", "heal", str(repo), "--sandbox", "local", "--provider",
            "anthropic", "--out", str(out), "--python", sys.executable, "--max-iterations", "1",
            "--set", "llm.timeout=2", "--set", "llm.max-retries=1"]  # fmt: skip
    try:
        return subprocess.run(argv, env=env, cwd=work, capture_output=True, text=True, timeout=BOUND_S)
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(argv, -9, "", f"[harness] cut after {BOUND_S:.0f}s {exc.stderr!r}")


def _judge(
    case: Case, done: subprocess.CompletedProcess[str], out: Path, result: CaseResult, which: str
) -> None:
    failed = result.failed
    text = done.stdout + done.stderr
    report_path = out / "report.json"
    report: dict = {}
    if report_path.exists():
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
        except ValueError:
            failed.setdefault("report", f"{which}: report.json is not complete JSON")
    if "Traceback (most recent call last)" in text:
        failed.setdefault("clear-error", f"{which}: a traceback on stderr")
    if done.returncode != 0 or report.get("status") != "healed":
        failed.setdefault(
            "exit-code" if which == "first run" else "next-run",
            f"{which}: exit {done.returncode}, report status {report.get('status')!r}: "
            + (done.stderr.strip().splitlines() or ["(no stderr)"])[-1][:300],
        )
    if which == "first run" and case.reason:
        said = (
            text + (out / "trace.jsonl").read_text(encoding="utf-8")
            if (out / "trace.jsonl").exists()
            else text
        )
        if case.reason not in said or "anthropic" not in said:
            failed.setdefault(
                "reason", f"neither the output nor trace.jsonl names anthropic and {case.reason!r}"
            )
    left = leftovers(out.parent)
    if left:
        failed.setdefault("leftovers", f"{which}: {left}")


def run_model_case(case: Case, *, parent: Path | None = None, keep: bool = False) -> CaseResult:
    result = CaseResult(case.id, case.family, case.title)
    work = Path(tempfile.mkdtemp(prefix=f"selfheal-fault-{case.id}-", dir=parent))
    work.chmod(0o755)
    started = time.monotonic()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        repo = intervals_repo(work / "repo")
        proc, url = _fake(work, [case.model_step])
        procs.append(proc)
        first = _heal(work, repo, url, work / "out1")
        result.first = {"returncode": first.returncode, "error": first.stderr.strip()[-300:]}
        _judge(case, first, work / "out1", result, "first run")
        (work / "next").mkdir()
        proc, url = _fake(work / "next", [])  # the fault gone: no answers, the search heals after 400s
        procs.append(proc)
        second = _heal(work, repo, url, work / "out2")
        result.next = {"returncode": second.returncode}
        _judge(case, second, work / "out2", result, "next run")
    except Exception as exc:
        result.failed["harness"] = f"{type(exc).__name__}: {exc}"
    finally:
        for proc in procs:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    result.duration_s = time.monotonic() - started
    result.held = not result.failed
    return result
