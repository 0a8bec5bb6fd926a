"""The live view while the benchmark runs: a bar over the tasks and a line per running heal.

On a terminal it redraws in place (rich Live); elsewhere (CI logs, pipes, act) it prints one line
per finished task, since a redrawn display would only litter a log.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from evaluation.bench.record import TaskRun
from evaluation.bench.tasks import Task


def redraws(console: Console) -> bool:
    """A terminal, and not a CI runner's log: act and some runners hand steps a pseudo-terminal,
    where every redraw would end up in the log."""
    return console.is_terminal and not os.environ.get("GITHUB_ACTIONS")


class BenchProgress:
    def __init__(self, total: int, console: Console) -> None:
        self.console = console
        self.total = total
        self.lock = threading.Lock()
        self.running: dict[str, tuple[float, str]] = {}  # task id -> (started, last step)
        self.done = 0
        self.validated = 0
        self.claimed = 0
        self.bar = Progress(
            TextColumn("[bold]tasks"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.description}"), console=console,
        )  # fmt: skip
        self.bar_id = self.bar.add_task("", total=total)
        self.live = (
            Live(self, console=console, refresh_per_second=4, transient=True) if redraws(console) else None
        )

    def __enter__(self) -> BenchProgress:
        if self.live:
            self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live:
            self.live.stop()

    def __rich__(self) -> Group:
        table = Table.grid(padding=(0, 2))
        with self.lock:
            for task_id, (started, step) in sorted(self.running.items()):
                table.add_row(f"[cyan]{task_id}", f"{time.monotonic() - started:5.0f}s", step)
        return Group(self.bar, table)

    # -- Listener -----------------------------------------------------------------------------
    def started(self, task: Task) -> None:
        with self.lock:
            self.running[task.id] = (time.monotonic(), "starting")

    def progress(self, task: Task, update: dict[str, Any]) -> None:
        with self.lock:
            started, step = self.running.get(task.id, (time.monotonic(), ""))
            if "step" in update:
                step = str(update["step"])
            elif "screened" in update:
                step = f"screening: {update['screened']} candidates"
            self.running[task.id] = (started, step[:100])

    def finished(self, run: TaskRun) -> None:
        with self.lock:
            self.running.pop(run.id, None)
            self.done += 1
            self.claimed += run.self_reported
            self.validated += run.reference_validated
            description = f"{self.claimed} self-reported, {self.validated} reference-validated"
        self.bar.update(self.bar_id, advance=1, description=description)
        if self.live is None:
            verdict = (
                "reference ok" if run.reference_validated else ("OVERFITTING" if run.overfitting else "-")
            )
            self.console.print(
                f"[{self.done}/{self.total}] {run.id}: {run.status}, {verdict} ({run.wall_s:.1f}s)",
                markup=False, highlight=False,
            )  # fmt: skip
