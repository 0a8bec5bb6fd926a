"""The plugins selfheal's own requirements bring are kept out of a repository's runs that never
asked for them, and only then: real interpreters, real repositories, the real local sandbox."""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

import pytest

from selfheal.agent.run.ownplugins import _requires, unasked_plugins
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.sandbox import LocalSandbox

# spelled in two halves so that this file's own text does not name the plugin to the scans below
PLUGIN = "any" + "io"

PLAIN = {
    "calc.py": "def double(x):\n    return 2 * x\n",
    "tests/test_calc.py": "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
}


def test_selfheals_own_interpreter_leaves_out_its_dependencies_plugin(make_repo):
    # anyio's plugin arrives with httpx, which the model clients need: the repository never asked
    assert PLUGIN in unasked_plugins(sys.executable, make_repo(PLAIN))


def test_the_plugins_of_selfheals_installed_extras_are_its_own_too(make_repo):
    # this suite runs on selfheal installed with its `test` extra, which brings pytest-xdist
    unasked = unasked_plugins(sys.executable, make_repo(PLAIN))
    assert {"xdist", "xdist.looponfail"} <= set(unasked)
    repo = make_repo({**PLAIN, "requirements-dev.txt": "pytest-xdist>=3\n"})
    assert unasked_plugins(sys.executable, repo) == tuple(p for p in unasked if not p.startswith("xdist"))


@pytest.mark.parametrize(
    "path, text",
    [
        ("conftest.py", f'pytest_plugins = ["{PLUGIN}"]\n'),
        ("pyproject.toml", f'[project]\nname = "calc"\ndependencies = ["{PLUGIN.upper()}>=4"]\n'),
        ("requirements-dev.txt", f"{PLUGIN}==4.4\n"),
        ("tests/test_async.py", f"import pytest\n\n\n@pytest.mark.{PLUGIN}\nasync def test_x():\n    pass\n"),
    ],
    ids=["conftest", "pyproject", "requirements", "marker"],
)
def test_a_plugin_the_repository_names_stays(make_repo, path, text):
    unasked = unasked_plugins(sys.executable, make_repo(PLAIN))
    named = unasked_plugins(sys.executable, make_repo({**PLAIN, path: text}))
    assert named == tuple(p for p in unasked if p != PLUGIN)


def test_a_name_inside_a_longer_word_or_a_skipped_folder_does_not_count(make_repo):
    repo = make_repo({**PLAIN, "notes.txt": f"pytest-{PLUGIN}x is another thing, my_{PLUGIN}_tool too\n"})
    (repo / ".venv" / "lib").mkdir(parents=True)
    (repo / ".venv" / "lib" / "site.py").write_text(f"import {PLUGIN}\n", encoding="utf-8")
    assert PLUGIN in unasked_plugins(sys.executable, repo)


def test_another_interpreter_keeps_every_plugin(make_repo):
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not base.is_file() or os.path.samefile(sys.prefix, sys.base_prefix):
        pytest.skip("selfheal runs on its base interpreter here: there is no other environment")
    # the repository's own venv, --python or a container: what is installed there is its choice
    assert unasked_plugins(str(base), make_repo(PLAIN)) == ()


def _loaded_plugin_seen(make_repo, extra: dict[str, str]) -> str:
    """Run a test that says whether the plugin was loaded, through the real runner and sandbox."""
    probe = (
        "def test_probe(pytestconfig):\n"
        "    loaded = pytestconfig.pluginmanager.has_plugin('any' + 'io')\n"
        "    assert loaded is False, 'loaded'\n"
    )
    repo = make_repo({**PLAIN, "tests/test_probe.py": probe, **extra})
    workspace = Workspace.create(Origin.inspect(repo))
    session = LocalSandbox().start(workspace.root)
    try:
        runner = TestRunner(
            session, TestCommand.parse("python -m pytest", sys.executable, workspace.root), sys.executable,
            timeout=60, test_timeout=10,
        )  # fmt: skip
        report, _ = runner.run(["tests/test_probe.py"])
    finally:
        session.close()
        workspace.cleanup()
    return report.outcomes["tests/test_probe.py::test_probe"].outcome


def test_the_runs_go_without_it_where_unasked_and_with_it_where_named(make_repo):
    assert _loaded_plugin_seen(make_repo, {}) == "passed"
    assert _loaded_plugin_seen(make_repo, {"conftest.py": f"import {PLUGIN}  # noqa: F401\n"}) == "failed"


def test_the_requirements_read_from_the_headers_are_the_standard_readers_for_every_installed_distribution():
    names = sorted({d.metadata["Name"] for d in metadata.distributions()})
    assert len(names) > 20  # selfheal's own dependencies at least
    differing = {
        n: (metadata.requires(n), _requires(n))
        for n in names
        if sorted(metadata.requires(n) or []) != sorted(_requires(n))
    }
    assert differing == {}
