"""A corpus's figures at the end of a pytest run, shared by every corpus's figures plugin.

Each corpus test saves its case's result as JSON in one folder per run; the run's controller (the
xdist controller, or the only process) prints the tables from that folder in its terminal summary,
so CI's log carries the figures without running the corpus a second time. The folder is the
corpus's results variable when set (and kept), else a temporary one removed at the end.

A plugin module makes one `CorpusFigures` and binds its hooks at module level:

    FIGURES = CorpusFigures("escape", "SELFHEAL_ESCAPE_RESULTS", "escape corpus (...)", figures)
    pytest_configure, pytest_configure_node, pytest_terminal_summary, pytest_unconfigure = FIGURES.hooks
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

# xdist's distribution mode, as the controller saw it (a worker's own config says "no": xdist
# resets it there)
DIST_KEY = "corpus_dist"


class CorpusFigures:
    def __init__(self, name: str, results_env: str, section: str, figures: ModuleType) -> None:
        """`figures`: the corpus's evaluation module, with load_results, render and save_result."""
        self.results_env = results_env
        self.section = section
        self.figures = figures
        self.worker_key = f"{name}_results"
        self.prefix = f"selfheal-{name}-results-"
        self.folder = pytest.StashKey[Path]()
        self.owned = pytest.StashKey[bool]()

    @property
    def hooks(self) -> tuple[Callable, ...]:
        return (
            self.pytest_configure,
            self.pytest_configure_node,
            self.pytest_terminal_summary,
            self.pytest_unconfigure,
        )

    def pytest_configure(self, config: pytest.Config) -> None:
        worker = getattr(config, "workerinput", None)
        if worker is not None:
            if worker.get(self.worker_key):
                config.stash[self.folder] = Path(worker[self.worker_key])
            return
        given = os.environ.get(self.results_env)
        config.stash[self.folder] = Path(given) if given else Path(tempfile.mkdtemp(prefix=self.prefix))
        config.stash[self.owned] = not given

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        """xdist: tell each worker where the results go, and how the controller hands out tests."""
        node.workerinput[self.worker_key] = str(node.config.stash[self.folder])
        node.workerinput[DIST_KEY] = str(getattr(node.config.option, "dist", "no"))

    def save(self, config: pytest.Config, result: dict) -> None:
        folder = config.stash.get(self.folder, None)
        if folder is not None:
            self.figures.save_result(folder, result)

    def pytest_terminal_summary(self, terminalreporter, config: pytest.Config) -> None:
        if hasattr(config, "workerinput") or self.folder not in config.stash:
            return
        folder = config.stash[self.folder]
        results = self.figures.load_results(folder) if folder.is_dir() else []
        if results:
            terminalreporter.section(self.section)
            terminalreporter.write(self.figures.render(results))

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if config.stash.get(self.owned, False):
            shutil.rmtree(config.stash[self.folder], ignore_errors=True)


def heals_at_once(config: pytest.Config, jobs_env: str) -> int:
    """Heals a corpus runs at once in this process: `jobs_env` when set; 2 where the process runs
    every corpus test, 1 where xdist hands out single tests (two processes each prefetching every
    case would run it twice)."""
    if os.environ.get(jobs_env):
        return max(1, int(os.environ[jobs_env]))
    worker = getattr(config, "workerinput", None)
    if worker is not None and worker.get(DIST_KEY) not in ("loadfile", "loadscope"):
        return 1
    return 2
