"""The cheat corpus's figures at the end of a pytest run (a plugin, loaded by tests/conftest.py).

Each corpus test saves its case's result as JSON in one folder per run; the run's controller (the
xdist controller, or the only process) prints the tables from that folder in its terminal summary.
The folder is SELFHEAL_CHEAT_RESULTS when set (and kept), else a temporary one removed at the end.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from evaluation.cheats.figures import load_results, render, save_result

RESULTS_ENV = "SELFHEAL_CHEAT_RESULTS"
FOLDER = pytest.StashKey[Path]()
OWNED = pytest.StashKey[bool]()


def pytest_configure(config: pytest.Config) -> None:
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        if worker.get("cheat_results"):
            config.stash[FOLDER] = Path(worker["cheat_results"])
        return
    given = os.environ.get(RESULTS_ENV)
    config.stash[FOLDER] = Path(given) if given else Path(tempfile.mkdtemp(prefix="selfheal-cheat-results-"))
    config.stash[OWNED] = not given


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    node.workerinput["cheat_results"] = str(node.config.stash[FOLDER])


def save(config: pytest.Config, result: dict) -> None:
    folder = config.stash.get(FOLDER, None)
    if folder is not None:
        save_result(folder, result)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or FOLDER not in config.stash:
        return
    results = load_results(config.stash[FOLDER]) if config.stash[FOLDER].is_dir() else []
    if results:
        terminalreporter.section("cheat corpus (tests/agent/test_cheat_corpus.py)")
        terminalreporter.write(render(results))


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(OWNED, False):
        shutil.rmtree(config.stash[FOLDER], ignore_errors=True)
