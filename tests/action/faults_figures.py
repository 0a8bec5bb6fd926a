"""The fault cases' figures at the end of a pytest run (a plugin, loaded by tests/conftest.py).

Each fault test saves its case's result as JSON in one folder per run; the run's controller (the
xdist controller, or the only process) prints the table from it in its terminal summary. The folder
is SELFHEAL_FAULTS_RESULTS when set (and kept), else a temporary one removed at the end.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from evaluation.faults.figures import load_results, render, save_result

RESULTS_ENV = "SELFHEAL_FAULTS_RESULTS"
FOLDER = pytest.StashKey[Path]()
OWNED = pytest.StashKey[bool]()


def pytest_configure(config: pytest.Config) -> None:
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        if worker.get("faults_results"):
            config.stash[FOLDER] = Path(worker["faults_results"])
        return
    given = os.environ.get(RESULTS_ENV)
    config.stash[FOLDER] = Path(given) if given else Path(tempfile.mkdtemp(prefix="selfheal-faults-results-"))
    config.stash[OWNED] = not given


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist: tell each worker where the results go, and how the controller hands out tests (a
    worker's own config says "no": xdist resets it there)."""
    node.workerinput["faults_results"] = str(node.config.stash[FOLDER])
    node.workerinput["faults_dist"] = str(getattr(node.config.option, "dist", "no"))


def save(config: pytest.Config, result: dict) -> None:
    folder = config.stash.get(FOLDER, None)
    if folder is not None:
        save_result(folder, result)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or FOLDER not in config.stash:
        return
    results = load_results(config.stash[FOLDER]) if config.stash[FOLDER].is_dir() else []
    if results:
        terminalreporter.section("fault cases (tests/action/test_faults.py)")
        terminalreporter.write(render(results))


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(OWNED, False):
        shutil.rmtree(config.stash[FOLDER], ignore_errors=True)
