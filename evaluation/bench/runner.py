"""Run tasks on N parallel workers: one process per heal, killed as a group if it overruns."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from evaluation.bench.record import CRASHED, TIMEOUT, TaskRun, failed_run
from evaluation.bench.tasks import Task

ROOT = Path(__file__).resolve().parents[2]  # holds evaluation/: the workers import from here
STDERR_TAIL = 2000


@dataclass(frozen=True)
class RunOptions:
    flags: dict[str, Any]  # build_config flags for every heal (budgets, provider, sandbox, seed)
    workers: int = 2
    task_timeout: float = 900.0  # hard limit of one worker, heal and hidden tests together
    hidden_timeout: float = 120.0
    runs_dir: Path | None = None  # keep each heal's output folder (report.json, trace.jsonl) here


class Listener(Protocol):
    def started(self, task: Task) -> None: ...
    def progress(self, task: Task, update: dict[str, Any]) -> None: ...
    def finished(self, run: TaskRun) -> None: ...


class Runner:
    def __init__(self, options: RunOptions, listener: Listener) -> None:
        self.options = options
        self.listener = listener
        self.lock = threading.Lock()
        self.live: dict[str, subprocess.Popen] = {}
        self.stopping = False

    def run(self, tasks: Sequence[Task]) -> list[TaskRun]:
        """A record per task, in the order given."""
        with tempfile.TemporaryDirectory(prefix="selfheal-bench-") as tmp:
            pool = ThreadPoolExecutor(max_workers=max(1, self.options.workers))
            try:
                futures = [pool.submit(self._one, task, Path(tmp)) for task in tasks]
                return [future.result() for future in futures]
            except BaseException:
                self.stop()
                raise
            finally:
                pool.shutdown(wait=True, cancel_futures=True)

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            for process in self.live.values():
                _kill(process)

    def _one(self, task: Task, tmp: Path) -> TaskRun:
        work = tmp / task.id
        work.mkdir()
        out = (self.options.runs_dir / task.id) if self.options.runs_dir else work / "out"
        record = work / "record.json"
        spec = work / "spec.json"
        spec.write_text(json.dumps({
            "task": str(task.folder), "work": str(work), "out": str(out), "record": str(record),
            "flags": self.options.flags, "hidden_timeout": self.options.hidden_timeout,
        }, default=str), encoding="utf-8")  # fmt: skip
        started = time.monotonic()
        with self.lock:
            if self.stopping:
                return failed_run(task, "error", "the benchmark was interrupted", 0.0)
            stderr = (work / "stderr.txt").open("w+", encoding="utf-8")
            process = subprocess.Popen(
                [sys.executable, "-m", "evaluation.bench.worker", str(spec)],
                cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True,
            )  # fmt: skip
            self.live[task.id] = process
        self.listener.started(task)
        timed_out = threading.Event()

        def overrun() -> None:
            timed_out.set()
            _kill(process)

        timer = threading.Timer(self.options.task_timeout, overrun)
        timer.start()
        try:
            assert process.stdout is not None
            for line in process.stdout:
                try:
                    update = json.loads(line)
                except json.JSONDecodeError:
                    continue  # something the heal printed; only the JSON lines are progress
                if isinstance(update, dict):
                    self.listener.progress(task, update)
            process.wait()
        finally:
            timer.cancel()
            with self.lock:
                self.live.pop(task.id, None)
        wall = time.monotonic() - started
        stderr.seek(0)
        errors = stderr.read()[-STDERR_TAIL:]
        stderr.close()
        if timed_out.is_set():
            run = failed_run(task, TIMEOUT, f"killed after {self.options.task_timeout:.0f}s", wall)
        elif record.is_file():
            run = TaskRun.from_dict(json.loads(record.read_text(encoding="utf-8")))
        else:
            run = failed_run(task, CRASHED, f"worker exit code {process.returncode}: {errors}", wall)
        self.listener.finished(run)
        return run


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the worker and every test process it started
    except (ProcessLookupError, PermissionError):
        pass
