"""One task, in a worker process of its own: heal a fresh copy, then check the patch.

    python -m evaluation.bench.worker SPEC.json

SPEC holds the task folder, a work folder, the output folder for the heal's files, the heal's
settings (build_config flags) and the hidden tests' timeout. The worker writes the task's record
to SPEC's `record` path and, while it heals, one JSON line per finished step to stdout for the
runner's progress display. A process per heal keeps heals apart: each has its own sandbox session,
and the runner can kill one that overruns without touching the others.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any, TextIO

from evaluation.bench.hidden import IGNORED, patched_copy, run_hidden
from evaluation.bench.record import TaskRun, failed_run, from_report
from evaluation.bench.reference import task_matches_reference
from evaluation.bench.tasks import Task, load_task
from selfheal.agent.config import build_config, choose_sandbox_for
from selfheal.agent.events import Event, Fanout, Trace, describe_finished
from selfheal.agent.exceptions import SelfhealError
from selfheal.agent.loop import heal
from selfheal.agent.model.strategy import setup_for
from selfheal.agent.report.outputs import write_outputs
from selfheal.agent.report.result import HEALED
from selfheal.sandbox.exceptions import SandboxError

GIT = [
    "git",
    "-c",
    "user.name=selfheal-bench",
    "-c",
    "user.email=bench@selfheal.invalid",
    "-c",
    "commit.gpgsign=false",
]


class ProgressLines:
    """Finished steps as JSON lines on a stream; screenings at most a few times a second."""

    def __init__(self, stream: TextIO, every_s: float = 0.5) -> None:
        self.stream = stream
        self.every_s = every_s
        self.last = 0.0

    def emit(self, event: Event) -> None:
        if event.end is None:
            return
        if event.node == "screen":
            now = time.monotonic()
            if now - self.last < self.every_s:
                return
            self.last = now
            self._write({"screened": event.data.get("n", 0)})
            return
        line = describe_finished(event)
        if line:
            self._write({"step": line})

    def _write(self, data: dict[str, Any]) -> None:
        self.stream.write(json.dumps(data) + "\n")
        self.stream.flush()


def fresh_repo(task: Task, into: Path) -> Path:
    """A copy of the task's repo as a one-commit git repository: the heal's base commit."""
    shutil.copytree(task.repo, into, ignore=IGNORED)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", f"task {task.id}"]):
        subprocess.run([*GIT, *args], cwd=into, check=True, capture_output=True)
    return into


def heal_task(
    task: Task, work: Path, out: Path, flags: dict[str, Any], hidden_timeout: float, progress=None
) -> TaskRun:
    started = time.monotonic()
    digest = task.digest()  # before the copy: tasks may be edited while a long benchmark runs
    repo = fresh_repo(task, work / "repo")
    try:
        config = build_config(repo, {
            "test_command": task.test_command, "python": sys.executable, "out_dir": out, **flags,
        })  # fmt: skip
        sandbox, fallback = choose_sandbox_for(config)
        model = setup_for(
            config.llm, token_budget=config.max_tokens, usd_budget=config.max_usd, parallel=config.parallel
        )
        trace = Trace()
        result = heal(config, sandbox, Fanout(trace, progress), model=model)
    except (SelfhealError, SandboxError) as exc:
        return failed_run(task, "error", str(exc), time.monotonic() - started)
    result.fell_back(fallback)
    report = write_outputs(result, trace, out)
    hidden = matches = None
    if result.status == HEALED:
        # the patch as a pull request would carry it: changed sources and the new tests
        copy = patched_copy(task, {**result.changes, **result.test_files}, work / "check")
        hidden = run_hidden(task, copy, sys.executable, hidden_timeout)
        matches = task_matches_reference(task, result.changes)  # the sources only: new tests aside
    return from_report(task, report, [e.as_dict() for e in trace.events], hidden, digest, matches)


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    task = load_task(Path(spec["task"]))
    started = time.monotonic()
    try:
        run = heal_task(
            task, Path(spec["work"]), Path(spec["out"]), spec["flags"], spec["hidden_timeout"],
            ProgressLines(sys.stdout),
        )  # fmt: skip
    except Exception as exc:  # the bench goes on with the other tasks; the record says what broke
        tail = "".join(traceback.format_exception(exc)[-3:])
        run = failed_run(task, "error", f"internal error: {exc!r}\n{tail}", time.monotonic() - started)
    Path(spec["record"]).write_text(json.dumps(run.as_dict(), indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
