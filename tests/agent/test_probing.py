"""A changed function's generated inputs on versions of the code, run in a real local sandbox
(agent/probing.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from selfheal.agent.probing import BehaviourProbes
from selfheal.sandbox import LocalSandbox
from tests.conftest import write_tree

BASE = '''\
from helpers import unit


def sign(x: int) -> int:
    """-1, 0 or 1."""
    if x > 0:
        return unit()
    if x < 0:
        return -1
    return 0
'''
HELPERS = "def unit():\n    return 1\n"
TESTS = "from calc import sign\n\n\ndef test_sign():\n    assert sign(5) == 1\n    assert sign(-3) == -1\n"
FILES = {"calc.py": BASE, "helpers.py": HELPERS, "tests/test_calc.py": TESTS}


def probes_for(session) -> BehaviourProbes:
    return BehaviourProbes(
        session, sys.executable, lambda path: FILES[path], lambda: {"tests/test_calc.py": TESTS}
    )


def changed(base, version) -> int:
    return sum(1 for p, o in base.outcomes.items() if o.key is not None and version.outcomes[p].key != o.key)


def test_versions_run_once_each_and_the_files_are_put_back(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    only_zero = BASE.replace("    return 0\n", "    return 1\n")  # differs at x == 0 only
    with LocalSandbox().start(tmp_path) as session:
        probes = probes_for(session)
        base = probes.run("calc.py", "sign", {})
        zero = probes.run("calc.py", "sign", {"calc.py": only_zero})
        again = probes.run("calc.py", "sign", {"calc.py": only_zero})
        unchanged = probes.run("calc.py", "sign", {"calc.py": BASE})  # the base text: the base's run
        assert session.read_file("calc.py") == BASE.encode()
    assert base is not None and zero is not None
    assert changed(base, zero) == 1  # 0 is among the planned inputs (an int edge), and only it changed
    assert again is zero and unchanged is base
    assert probes.runs == 2


def test_a_version_that_changes_a_helper_in_another_file_is_run_with_it(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    with LocalSandbox().start(tmp_path) as session:
        probes = probes_for(session)
        base = probes.run("calc.py", "sign", {})
        helper = probes.run("calc.py", "sign", {"helpers.py": "def unit():\n    return 2\n"})
        assert session.read_file("helpers.py") == HELPERS.encode()
    assert base is not None and helper is not None
    assert changed(base, helper) > 2  # every positive input now gives 2


def test_a_version_that_cannot_be_imported_and_a_function_not_found_say_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    broken = BASE.replace("def sign(x: int) -> int:", "def sign(x: int) -> int")
    with LocalSandbox().start(tmp_path) as session:
        probes = probes_for(session)
        assert probes.run("calc.py", "sign", {"calc.py": broken}) is None
        assert probes.run("calc.py", "absent", {}) is None
        assert probes.plan("calc.py", "absent") is None
    why = probes.why("calc.py", "absent")
    assert why == "absent is not a function or a method of a top-level class in calc.py"
