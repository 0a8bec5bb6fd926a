"""One fault case, run and judged: a bare remote with the intervals example (a pull request #7 whose
head fails one test), the fake GitHub in its own process, `/heal` by a writer on #7, and
`selfheal action` run as the runner runs it, with the case's fault. Then, with the fault gone, the
same event again (a new `/heal` comment): that next run must succeed.

Requirements, each judged on every case (a failed one is named in the result):

- exit-code: the first run's exit code (and `status` output) is the case's;
- clear-error: neither run prints a Python traceback or an "internal error"; a failure is one
  clear `::error::` line;
- no-duplicate-pr: never more than one open pull request from a `selfheal/` branch;
- no-stray-branch: no `selfheal/` branch on the remote without an open pull request;
- report: report.json is complete JSON wherever it exists, and where `report-path` names it;
- next-run: the next run exits 0, healed, its `pr-operation` created, updated or none;
- leftovers: no process of a sandbox uid (50000-60000) and no selfheal container is left.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluation.faults.cases import Case
from evaluation.faults.model import run_model_case
from evaluation.faults.result import CaseResult
from evaluation.faults.world import FAKE, git, intervals_repo, leftovers

REPO = "acme/widgets"
TOKEN = "ghs_faultcase0123456789abcdef0123456789"
BOT = "github-actions[bot]"
GITHUB_TIMEOUT_S = 3  # SELFHEAL_GITHUB_TIMEOUT: a hang is a timeout after this long
BOUND_S = 240.0  # one action run; a hang of selfheal itself is cut here


@dataclass
class RunFacts:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    workspace: str
    duration_s: float
    pid: int = 0


# -- the world -------------------------------------------------------------------------------------
def seed_remote(work: Path) -> Path:
    seed = intervals_repo(work / "seed")
    git(seed, "checkout", "-q", "-b", "feature")
    (seed / "NOTES.md").write_text("touching intervals should merge\n", encoding="utf-8")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "notes")
    remote = work / "remote.git"
    git(work, "init", "-q", "--bare", "-b", "main", str(remote))
    git(seed, "push", "-q", str(remote), "main", "feature")
    return remote


class Fake:
    """The fake GitHub as a process, driven through its admin routes."""

    def __init__(self, work: Path, remote: Path) -> None:
        state = {
            "token": TOKEN,
            "bot_login": BOT,
            "repos": [{
                "full_name": REPO, "default_branch": "main", "git_dir": str(remote),
                "collaborators": {"alice": "write"},
                "pulls": [{"number": 7, "title": "Add notes", "body": "", "user": "alice",
                           "head_ref": "feature", "head_sha": None, "base_ref": "main",
                           "head_full_name": REPO}],
            }],
        }  # fmt: skip
        folder = work / "fake"
        folder.mkdir()
        (folder / "state.json").write_text(json.dumps(state), encoding="utf-8")
        ready = folder / "ready.json"
        self.log = (folder / "server.log").open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, str(FAKE), "--state", str(folder / "state.json"), "--port", "0",
             "--ready-file", str(ready), "--exit-with-parent"],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not ready.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the fake GitHub did not start")
            time.sleep(0.05)
        info = json.loads(ready.read_text(encoding="utf-8"))
        self.url, self.api_url = info["url"], info["api_url"]
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def admin(self, method: str, path: str, payload: Any = None) -> Any:
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            f"{self.url}/_fake/{path}", data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with self._opener.open(request, timeout=30) as response:
            return json.loads(response.read() or b"null")

    def repo(self) -> dict[str, Any]:
        return next(r for r in self.admin("GET", "state")["repos"] if r["full_name"] == REPO)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def event(comment_id: int) -> dict[str, Any]:
    api = "https://api.github.com"
    alice = {"login": "alice", "id": 2005, "type": "User"}
    repository = {
        "id": 4242,
        "name": "widgets",
        "full_name": REPO,
        "private": False,
        "fork": False,
        "owner": {"login": "acme", "id": 900, "type": "User"},
        "default_branch": "main",
        "clone_url": f"https://github.com/{REPO}.git",
        "html_url": f"https://github.com/{REPO}",
    }
    return {
        "action": "created",
        "issue": {"url": f"{api}/repos/{REPO}/issues/7", "id": 70007, "number": 7, "title": "Add notes",
                  "user": alice, "labels": [], "state": "open", "body": "", "author_association": "MEMBER",
                  "pull_request": {"url": f"{api}/repos/{REPO}/pulls/7"}},
        "comment": {"id": comment_id, "user": alice, "body": "/heal", "author_association": "COLLABORATOR",
                    "url": f"{api}/repos/{REPO}/issues/comments/{comment_id}"},
        "repository": repository,
        "sender": alice,
    }  # fmt: skip


# -- one run of the action ---------------------------------------------------------------------------
def run_action(
    fake: Fake,
    work: Path,
    comment_id: int,
    *,
    inputs: dict[str, str],
    signal_name: str = "",
    stage: str = "",
    out_mount: Path | None = None,
    kill_container: bool = False,
) -> RunFacts:
    fake.admin("POST", "seed", {"full_name": REPO, "comment": {
        "issue_number": 7, "user": "alice", "body": "/heal", "id": comment_id}})  # fmt: skip
    folder = work / f"run-{comment_id}"
    workspace, temp = folder / "workspace", folder / "runner_temp"
    workspace.mkdir(parents=True)
    temp.mkdir()
    if out_mount is not None:
        (workspace / ".selfheal").symlink_to(out_mount)
    event_path = folder / "event.json"
    event_path.write_text(json.dumps(event(comment_id)), encoding="utf-8")
    output = folder / "output"
    tmp = work / "tmp"  # the sandbox's workspace copies: processes found there are this case's
    tmp.mkdir(exist_ok=True)
    tmp.chmod(0o755)
    env = {
        "PATH": os.environ["PATH"], "HOME": str(temp), "LANG": "C.UTF-8", "CI": "true",
        "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": REPO, "GITHUB_REPOSITORY_OWNER": "acme", "GITHUB_API_URL": fake.api_url,
        "GITHUB_SERVER_URL": fake.url, "GITHUB_WORKSPACE": str(workspace), "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(folder / "summary.md"), "GITHUB_RUN_ID": "31337",
        "GITHUB_RUN_ATTEMPT": "1", "RUNNER_TEMP": str(temp), "TMPDIR": str(tmp),
        "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1",
        "SELFHEAL_GITHUB_WRITE_INTERVAL": "0", "SELFHEAL_GITHUB_TIMEOUT": str(GITHUB_TIMEOUT_S),
        "INPUT_GITHUB-TOKEN": TOKEN, "INPUT_SANDBOX": "local", "INPUT_MAX-MINUTES": "5",
        "INPUT_PERMISSION": "write", "INPUT_MODE": "auto", "INPUT_DRY-RUN": "false",
    }  # fmt: skip
    for name, value in inputs.items():
        env[f"INPUT_{name.upper()}"] = value
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "selfheal", "action"], env=env, cwd=workspace, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    err: list[str] = []
    out: list[str] = []
    sent = threading.Event()

    def read_err() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            err.append(line)
            if (signal_name or kill_container) and not sent.is_set() and stage and stage in line:
                sent.set()
                if kill_container:
                    threading.Thread(target=_kill_container, args=(proc.pid, err), daemon=True).start()
                else:
                    os.kill(proc.pid, getattr(signal, f"SIG{signal_name}"))

    def read_out() -> None:
        assert proc.stdout is not None
        out.extend(proc.stdout)

    readers = [threading.Thread(target=read_err, daemon=True), threading.Thread(target=read_out, daemon=True)]
    for reader in readers:
        reader.start()
    try:
        returncode = proc.wait(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        returncode = proc.wait()
        err.append(f"[harness] cut after {BOUND_S:.0f}s\n")
    for reader in readers:
        reader.join(timeout=10)
    if (signal_name or kill_container) and not sent.is_set():
        err.append(f"[harness] stage {stage!r} never showed; no signal sent\n")
    return RunFacts(
        returncode, "".join(out), "".join(err), parse_output_file(output), str(workspace),
        time.monotonic() - started, proc.pid,
    )  # fmt: skip


def _owned_containers(pid: int) -> list[str]:
    """The docker sandbox's containers of selfheal process `pid` (their owner label says so)."""
    owner = f"{socket.gethostname()}:{pid}"
    done = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=selfheal.owner={owner}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done.stdout.split()


def _kill_container(pid: int, log: list[str]) -> None:
    for _ in range(50):
        found = _owned_containers(pid)
        if found:
            subprocess.run(["docker", "kill", *found], capture_output=True, check=False)
            log.append(f"[harness] docker kill {' '.join(found)}\n")
            return
        time.sleep(0.1)
    log.append("[harness] no container of the run found to kill\n")


def parse_output_file(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    values: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        if "<<" in lines[i]:
            name, delimiter = lines[i].split("<<", 1)
            end = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        else:
            i += 1
    return values


# -- judging ---------------------------------------------------------------------------------------------
def _pulls_and_strays(fake: Fake, remote: Path) -> tuple[list[str], list[str]]:
    open_heads = [p["head"]["ref"] for p in fake.repo()["pulls"] if p["state"] == "open"]
    ours = [h for h in open_heads if h.startswith("selfheal/")]
    listed = git(remote, "for-each-ref", "--format=%(refname:short)", "refs/heads/selfheal")
    strays = [b for b in listed.split() if b not in ours]
    return ours, strays


def _report_problem(run: RunFacts) -> str:
    workspace = Path(run.workspace)
    named = run.outputs.get("report-path")
    if named and not (workspace / named / "report.json").is_file():
        return f"report-path {named} has no report.json"
    runs = workspace / ".selfheal" / "runs"
    for report in sorted(runs.glob("*/report.json")) if runs.is_dir() else []:
        try:
            data = json.loads(report.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return f"{report.name} in {report.parent.name} is not complete JSON ({type(exc).__name__})"
        if not isinstance(data, dict) or "status" not in data:
            return f"{report.parent.name}/report.json has no status"
    return ""


def _traceback(run: RunFacts) -> bool:
    return "Traceback (most recent call last)" in run.stderr + run.stdout


def judge_first(case: Case, run: RunFacts, result: CaseResult) -> None:
    failed = result.failed
    status = run.outputs.get("status", "")
    operation = run.outputs.get("pr-operation", "")
    if run.returncode != case.exit or status != case.status or operation != case.first_op:
        failed["exit-code"] = (
            f"exit {run.returncode}, status {status!r}, pr-operation {operation!r}; wanted "
            f"{case.exit}, {case.status!r}, {case.first_op!r}"
        )
    if case.exit == 1 and not case.signal and "::error::selfheal: " not in run.stderr:
        failed.setdefault("exit-code", "no ::error:: line says why")
    if case.report:
        _judge_report(case, run, result)


def _judge_report(case: Case, run: RunFacts, result: CaseResult) -> None:
    """A heal the signal stopped wrote its report (what it tried) before the action exited."""
    where = run.outputs.get("report-path", "")
    report = Path(run.workspace) / where / "report.json" if where else None
    if report is None or not report.is_file():
        result.failed["report"] = f"no report.json at the report-path output ({where!r})"
        return
    status = json.loads(report.read_text(encoding="utf-8")).get("status")
    if status != case.report:
        result.failed["report"] = f"report.json says {status!r}, wanted {case.report!r}"


def run_case(case: Case, *, parent: Path | None = None, keep: bool = False) -> CaseResult:
    if case.model_step:
        return run_model_case(case, parent=parent, keep=keep)
    result = CaseResult(case.id, case.family, case.title)
    work = Path(tempfile.mkdtemp(prefix=f"selfheal-fault-{case.id}-", dir=parent))
    work.chmod(0o755)
    started = time.monotonic()
    mount: Path | None = None
    fake: Fake | None = None
    try:
        remote = seed_remote(work)
        fake = Fake(work, remote)
        for rule in case.rules:
            fake.admin("POST", "fail", rule)
        if case.disk_kb:
            mount = _small_disk(work, case.disk_kb)
        first = run_action(fake, work, 5001, inputs=case.inputs, signal_name=case.signal, stage=case.stage,
                           out_mount=mount, kill_container=case.kill_container)  # fmt: skip
        result.first = _facts(first)
        if case.kill_container and "[harness] docker kill" not in first.stderr:
            result.failed["harness"] = "the container was not killed"
        for container in _owned_containers(first.pid):
            result.failed.setdefault("leftovers", f"first run: container {container} left behind")
        judge_first(case, first, result)
        # after SIGKILL nothing could be undone: a branch pushed just before stays for the next run
        _judge_common(fake, remote, first, result, "first run", strays_ok=case.signal == "KILL")
        fake.admin("POST", "fail/clear", {})
        second = run_action(fake, work, 5002, inputs=case.inputs)
        result.next = _facts(second)
        if (second.returncode, second.outputs.get("status")) != (0, "healed") or second.outputs.get(
            "pr-operation"
        ) not in ("created", "updated", "none"):
            result.failed["next-run"] = (
                f"exit {second.returncode}, status {second.outputs.get('status')!r}, "
                f"pr-operation {second.outputs.get('pr-operation')!r}: {_last_error(second)}"
            )
        _judge_common(fake, remote, second, result, "next run")
        ours, _ = _pulls_and_strays(fake, remote)
        if len(ours) != 1 and "next-run" not in result.failed:
            result.failed["next-run"] = f"{len(ours)} open selfheal pull requests after it"
    except Exception as exc:  # the harness's own failure is a failed case, named
        result.failed["harness"] = f"{type(exc).__name__}: {exc}"
    finally:
        if fake is not None:
            fake.stop()
        if mount is not None:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    result.duration_s = time.monotonic() - started
    result.held = not result.failed
    return result


def _judge_common(
    fake: Fake, remote: Path, run: RunFacts, result: CaseResult, which: str, *, strays_ok: bool = False
) -> None:
    failed = result.failed
    if _traceback(run):
        failed.setdefault("clear-error", f"{which}: a traceback on stderr")
    if "internal error:" in run.stderr:
        failed.setdefault("clear-error", f"{which}: an internal error, not a reason: {_last_error(run)}")
    ours, strays = _pulls_and_strays(fake, remote)
    if len(ours) > 1:
        failed.setdefault("no-duplicate-pr", f"{which}: {len(ours)} open selfheal pull requests")
    if strays and not strays_ok:
        failed.setdefault("no-stray-branch", f"{which}: {', '.join(strays)} without a pull request")
    problem = _report_problem(run)
    if problem:
        failed.setdefault("report", f"{which}: {problem}")
    left = leftovers(Path(run.workspace).parents[1])
    if left:
        failed.setdefault("leftovers", f"{which}: {left}")


def _last_error(run: RunFacts) -> str:
    lines = [line for line in run.stderr.splitlines() if "::error::" in line]
    return lines[-1][:300] if lines else (run.stderr.strip().splitlines() or ["(no stderr)"])[-1][:300]


def _facts(run: RunFacts) -> dict[str, Any]:
    return {
        "returncode": run.returncode,
        "outputs": run.outputs,
        "duration_s": round(run.duration_s, 1),
        "error": _last_error(run) if run.returncode else "",
    }


def _small_disk(work: Path, size_kb: int) -> Path:
    mount = work / "small-disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(mount)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"cannot mount a small tmpfs: {done.stderr.strip()}")
    return mount
