"""Whole heals whose fix is an `except` clause: one that let an exception escape which its sibling
handler converts (raised in the `try` body, or in a helper it called), one that swallowed a
KeyboardInterrupt the caller must see.

Runs through the public API with the local sandbox and real pytest, checks the proof obligations
of `heal_repo`, then the concrete clause shipped and its family.
"""

from __future__ import annotations

import pytest

from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow

SETTINGS = '''
"""Settings read from environment-style values."""


class SettingError(Exception):
    """A setting that cannot be read, naming the setting."""


def as_int(name, value):
    """The integer a setting holds; SettingError when it holds none."""
    try:
        return int(value)
    except ValueError as e:
        raise SettingError(f"{name}: {e}") from e


def as_flag(name, value):
    """True for "1", "yes" or "true", False for "0", "no" or "false", in any case."""
    text = str(value).strip().lower()
    if text in ("1", "yes", "true"):
        return True
    if text in ("0", "no", "false"):
        return False
    raise SettingError(f"{name}: not a flag: {value!r}")
'''

SETTINGS_TESTS = """
import pytest

from config.settings import SettingError, as_flag, as_int


def test_an_integer_is_read():
    assert as_int("port", "8080") == 8080
    assert as_int("port", " 7 ") == 7


def test_text_is_not_an_integer():
    with pytest.raises(SettingError, match="port"):
        as_int("port", "eighty")


def test_a_missing_value_is_not_an_integer():
    with pytest.raises(SettingError, match="port"):
        as_int("port", None)


@pytest.mark.parametrize("value", ["1", "YES", "true"])
def test_flags(value):
    assert as_flag("debug", value) is True
"""

PORTS = '''
"""Port numbers read from settings."""


class SettingError(Exception):
    """A setting that cannot be read, naming the setting."""


def _number(value):
    """The integer written in decimal in `value`."""
    return int(value, 10)


def as_port(name, value):
    """A TCP port number; SettingError when the setting holds none."""
    try:
        port = _number(value)
    except ValueError as e:
        raise SettingError(f"{name}: {e}") from e
    if not 0 < port < 65536:
        raise SettingError(f"{name}: {port} is not a port")
    return port
'''

PORTS_TESTS = """
import pytest

from config.ports import SettingError, as_port


def test_a_port_is_read():
    assert as_port("port", "8080") == 8080


@pytest.mark.parametrize("value", ["http", "0", "70000"])
def test_what_is_not_a_port(value):
    with pytest.raises(SettingError, match="port"):
        as_port("port", value)


def test_a_missing_value_is_not_a_port():
    with pytest.raises(SettingError, match="port"):
        as_port("port", None)
"""

TASKS = '''
"""Run a batch of tasks in turn."""


class TaskFailed(Exception):
    """A task of the batch failed; names the task."""


def run_all(tasks):
    """The results of the tasks, in order. A task that fails stops the batch with TaskFailed
    naming it; an interrupt (Ctrl-C) or an exit stops it as it is."""
    results = []
    for task in tasks:
        try:
            results.append(task())
        except:  # noqa: E722
            raise TaskFailed(task.__name__)
    return results
'''

TASKS_TESTS = """
import pytest

from batch.tasks import TaskFailed, run_all


def one():
    return 1


def broken():
    return 1 / 0


def test_results_in_order():
    assert run_all([one, lambda: 2]) == [1, 2]


def test_a_failing_task_is_named():
    with pytest.raises(TaskFailed, match="broken"):
        run_all([one, broken])


def test_an_interrupt_stops_the_batch_as_it_is():
    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_all([one, interrupted])
"""


@pytest.mark.parametrize(
    ("files", "failing", "removed", "added"),
    [
        pytest.param(
            {
                "config/__init__.py": "",
                "config/settings.py": SETTINGS,
                "tests/test_settings.py": SETTINGS_TESTS,
            },
            "tests/test_settings.py::test_a_missing_value_is_not_an_integer",
            "    except ValueError as e:",
            "    except (ValueError, TypeError) as e:",
            id="an-exception-the-handler-missed-is-added-to-it",
        ),
        pytest.param(
            # the TypeError is raised in `_number`; the handler around its call is where it is caught
            {"config/__init__.py": "", "config/ports.py": PORTS, "tests/test_ports.py": PORTS_TESTS},
            "tests/test_ports.py::test_a_missing_value_is_not_a_port",
            "    except ValueError as e:",
            "    except (ValueError, TypeError) as e:",
            id="an-exception-a-helper-raised-inside-the-try-is-added-to-its-handler",
        ),
        pytest.param(
            {"batch/__init__.py": "", "batch/tasks.py": TASKS, "tests/test_tasks.py": TASKS_TESTS},
            "tests/test_tasks.py::test_an_interrupt_stops_the_batch_as_it_is",
            "        except:  # noqa: E722",
            "        except Exception:  # noqa: E722",
            id="a-bare-handler-lets-an-interrupt-through",
        ),
    ],
)
def test_the_except_clause_is_the_fix(make_repo, run_heal, tmp_path, files, failing, removed, added):
    result = heal_repo(make_repo, run_heal, tmp_path, files, failing={failing})
    assert diff_lines(result.patch) == ([removed], [added])
    assert result.fixes[0].family == "exception-handler"
