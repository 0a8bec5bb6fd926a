"""Shared fixtures: real temporary git repositories and the heal entry point, no mocks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.report.result import HealResult
from selfheal.sandbox import LocalSandbox
from tests.fakes.docker_engine import FakeDockerEngine
from tests.openpython import make_open_python

# the corpora's figures, printed at the end of every run that ran them
pytest_plugins = (
    "tests.sandbox.escape_figures",
    "tests.action.hostile_figures",
    "tests.action.faults_figures",
    "tests.agent.cheat_figures",
    "tests.agent.model.hostile_figures",
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCHEMA = ROOT / "contracts" / "heal-report.schema.json"
# selfheal's schema of the whole report: the shared contract allows extra fields, this one describes them
SECTIONS_SCHEMA = ROOT / "contracts" / "heal-report.selfheal.schema.json"
# A file of this name marks its folder's report.json files, and those below it, as written by a test
# by hand (a foreign or partial report an evaluation tool must read), not by a heal: the sweep of
# every report the suite wrote leaves them out.
HAND_MADE = "HAND-MADE-REPORTS"


def report_errors(report: dict) -> list[str]:
    """What keeps report.json from meeting the shared contract and selfheal's schema."""
    from evaluation.report_contract import report_problems

    return report_problems(report)


def hand_made_reports(folder: Path) -> Path:
    """`folder`, made, with the mark that the report.json files a test writes below it are its own."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / HAND_MADE).write_text("report.json files below are a test's, not a heal's\n", encoding="utf-8")
    return folder


def reports_under(root: Path) -> list[Path]:
    """Every report.json (a regular file, not a link) under `root`, but those under a HAND_MADE mark.
    Links to folders are not followed: a repository under test may plant one anywhere."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        if HAND_MADE in files:
            dirs.clear()
            continue
        path = Path(folder) / "report.json"
        if "report.json" in files and path.is_file() and not path.is_symlink():
            found.append(path)
    return sorted(found)


class ReportSweep:
    """The report.json files the suite wrote, each held to both contracts. Folders under the
    session's basetemp are swept when the session ends; a fixture that makes its folder elsewhere
    (a path another uid can enter) and removes it calls `sweep` first."""

    def __init__(self) -> None:
        self.problems: dict[Path, list[str]] = {}
        self.checked = 0

    def sweep(self, root: Path) -> None:
        from evaluation.report_contract import report_file_problems

        for path in reports_under(root):
            self.checked += 1
            if found := report_file_problems(path):
                self.problems[path] = found

    def failure(self) -> str:
        lines = [f"{len(self.problems)} of {self.checked} report.json files the tests wrote miss a contract:"]
        for path, found in sorted(self.problems.items()):
            lines.append(f"{path}:")
            lines += [f"  {problem}" for problem in found[:10]]
            lines += [f"  ... and {len(found) - 10} more"] if len(found) > 10 else []
        return "\n".join(lines)


@pytest.fixture(scope="session", autouse=True)
def report_sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReportSweep]:
    """Every report.json any test of this session (of this xdist worker: each has its own basetemp)
    wrote meets the shared contract and selfheal's schema; checked once the session's tests are done."""
    sweep = ReportSweep()
    yield sweep
    sweep.sweep(tmp_path_factory.getbasetemp())
    if sweep.problems:
        pytest.fail(sweep.failure(), pytrace=False)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def write_tree(root: Path, files: dict[str, str]) -> None:
    for relpath, text in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """Create a committed git repository from {path: source} (sources are dedented)."""
    counter = iter(range(1000))

    def make(files: dict[str, str], *, commit: bool = True, name: str | None = None) -> Path:
        root = tmp_path / (name or f"repo{next(counter)}")
        root.mkdir()
        write_tree(root, files)
        if commit:
            git(root, "init", "-q", "-b", "main")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "initial")
        return root

    return make


@pytest.fixture(scope="session")
def open_python() -> Iterator[str]:
    """An interpreter any uid can run, importing this run's packages (tests/openpython.py): for
    the local sandbox as root without namespaces, and for selfheal run as a normal user."""
    python, why = make_open_python()
    if python is None:
        pytest.skip(why)
    yield python
    folder = Path(python).parents[2]
    if folder.name.startswith("selfheal-openpy-"):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def docker_engine() -> Iterator[FakeDockerEngine]:
    """A Docker engine that answers but cannot pull an image (tests/fakes/docker_engine.py)."""
    engine = FakeDockerEngine.start()
    yield engine
    engine.stop()


@pytest.fixture
def no_docker_engine() -> str:
    """A DOCKER_HOST where no engine answers: a loopback port nothing listens on."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


@pytest.fixture
def run_heal() -> Callable[..., HealResult]:
    """Heal a repo with the local sandbox and this interpreter; returns the HealResult."""

    def run(repo: Path, **flags) -> HealResult:
        flags.setdefault("python", sys.executable)
        config = build_config(repo, flags)
        return heal(config, LocalSandbox(), Trace())

    return run


def apply_and_test(repo: Path, patch: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Apply a patch to a fresh clone of `repo` and run its full suite in a separate process."""
    clone = tmp_path / f"clone-{repo.name}"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    patch_file = tmp_path / f"{repo.name}.diff"
    patch_file.write_text(patch, encoding="utf-8")
    git(clone, "apply", "--check", str(patch_file))
    git(clone, "apply", str(patch_file))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(clone), "PYTHONDONTWRITEBYTECODE": "1"},
    )


def diff_lines(patch: str) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a unified diff, without their +/- marks."""
    removed, added = [], []
    for line in patch.splitlines():
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            removed.append(line[1:])
        elif line.startswith("+"):
            added.append(line[1:])
    return removed, added
