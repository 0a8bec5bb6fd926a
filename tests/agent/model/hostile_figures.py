"""The hostile-answers corpus's figures at the end of a pytest run that ran it (a plugin, loaded by
tests/conftest.py), as tests/sandbox/escape_figures.py does for the escape corpus: each case saves
its outcome as JSON in one folder per run (SELFHEAL_ANSWERS_RESULTS when set, and kept, else a
temporary one), and the run's controller prints the table in its terminal summary."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from evaluation.hostile_answers.figures import load_results, render, save_result

RESULTS_ENV = "SELFHEAL_ANSWERS_RESULTS"
FOLDER = pytest.StashKey[Path]()
OWNED = pytest.StashKey[bool]()


def pytest_configure(config: pytest.Config) -> None:
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        if worker.get("answers_results"):
            config.stash[FOLDER] = Path(worker["answers_results"])
        return
    given = os.environ.get(RESULTS_ENV)
    config.stash[FOLDER] = (
        Path(given) if given else Path(tempfile.mkdtemp(prefix="selfheal-hostile-results-"))
    )
    config.stash[OWNED] = not given


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist: tell each worker where the results go, and how the controller hands out tests."""
    node.workerinput["answers_results"] = str(node.config.stash[FOLDER])
    node.workerinput["answers_dist"] = str(getattr(node.config.option, "dist", "no"))


def save(config: pytest.Config, result: dict) -> None:
    folder = config.stash.get(FOLDER, None)
    if folder is not None:
        save_result(folder, result)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or FOLDER not in config.stash:
        return
    results = load_results(config.stash[FOLDER]) if config.stash[FOLDER].is_dir() else []
    if results:
        terminalreporter.section("hostile model answers (tests/agent/model/test_hostile_answers.py)")
        terminalreporter.write(render(results))


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(OWNED, False):
        shutil.rmtree(config.stash[FOLDER], ignore_errors=True)
