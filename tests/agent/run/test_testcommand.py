from __future__ import annotations

import pytest

from selfheal.agent.exceptions import TestCommandError
from selfheal.agent.run.testcommand import TestCommand

PY = "/opt/py/bin/python"


def test_python_m_pytest_uses_the_chosen_interpreter_and_keeps_options(tmp_path):
    (tmp_path / "tests").mkdir()
    command = TestCommand.parse("python -m pytest -q -p no:randomly tests -k 'not slow'", PY, tmp_path)
    assert command.argv == (PY, "-m", "pytest", "-q", "-p", "no:randomly", "tests", "-k", "not slow")
    assert command.pytest_options == ("-q", "-p", "no:randomly", "-k", "not slow")
    assert command.targeted(["tests/test_a.py::test_x"], PY) == [
        PY,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "-k",
        "not slow",
        "tests/test_a.py::test_x",
    ]


def test_bare_pytest_runs_under_the_interpreter(tmp_path):
    command = TestCommand.parse("pytest -x", PY, tmp_path)
    assert command.argv == (PY, "-m", "pytest", "-x")
    assert command.is_pytest


def test_other_commands_run_as_given_and_target_with_plain_pytest(tmp_path):
    command = TestCommand.parse("make test", PY, tmp_path)
    assert command.argv == ("make", "test")
    assert not command.is_pytest
    assert command.targeted(["t.py::a"], PY) == [PY, "-m", "pytest", "t.py::a"]


def test_leading_variables_become_environment(tmp_path):
    command = TestCommand.parse("DJANGO_SETTINGS=x.y python -m pytest", PY, tmp_path)
    assert command.env == (("DJANGO_SETTINGS", "x.y"),)
    assert command.argv == (PY, "-m", "pytest")


def test_shell_syntax_runs_through_sh(tmp_path):
    command = TestCommand.parse("cd sub && pytest", PY, tmp_path)
    assert command.argv == ("sh", "-c", "cd sub && pytest")
    assert command.uses_shell


@pytest.mark.parametrize("text", ["", "   ", "A=1", "pytest 'unclosed"])
def test_unusable_commands_are_rejected(tmp_path, text):
    with pytest.raises(TestCommandError):
        TestCommand.parse(text, PY, tmp_path)


def test_a_pythonpath_of_the_command_joins_selfheals(tmp_path):
    import sys

    from selfheal.agent.run.testrun import TestRunner
    from selfheal.sandbox import LocalSandbox

    command = TestCommand.parse("PYTHONPATH=lib:/opt/extra DEBUG=1 pytest", sys.executable, tmp_path)
    with LocalSandbox().start(tmp_path) as session:
        env = TestRunner(session, command, sys.executable, timeout=10, test_timeout=5).base_env()
    root = str(session.root)
    assert env["PYTHONPATH"].split(":") == [
        f"{root}/.selfheal-sandbox/runtime",
        root,
        f"{root}/lib",
        "/opt/extra",
    ]
    assert env["DEBUG"] == "1"
    assert env["SELFHEAL_ROOT"] == root
