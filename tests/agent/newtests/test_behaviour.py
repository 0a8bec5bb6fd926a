"""How much behaviour a version of a function changes on generated inputs, run in a real local
sandbox (agent/newtests/edgecases/behaviour.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from selfheal.agent.newtests.edgecases.behaviour import behaviour_changes
from selfheal.sandbox import LocalSandbox
from tests.conftest import write_tree

BASE = '''\
def sign(x: int) -> int:
    """-1, 0 or 1."""
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0
'''
TESTS = "from calc import sign\n\n\ndef test_sign():\n    assert sign(5) == 1\n    assert sign(-3) == -1\n"


def test_a_version_changing_one_input_counts_less_than_one_changing_many(tmp_path: Path) -> None:
    write_tree(tmp_path, {"calc.py": BASE, "tests/test_calc.py": TESTS})
    only_zero = BASE.replace("    return 0\n", "    return 1\n")  # differs at x == 0 only
    negated = BASE.replace("return 1\n", "return -2\n").replace("return -1\n", "return 1\n")
    broken = BASE.replace("def sign(x: int) -> int:", "def sign(x: int) -> int")  # cannot be imported
    with LocalSandbox().start(tmp_path) as session:
        counts = behaviour_changes(
            session, sys.executable, path="calc.py", function="sign", base_text=BASE,
            variants=[BASE, only_zero, negated, broken], existing_tests={"tests/test_calc.py": TESTS},
        )  # fmt: skip
        assert session.read_file("calc.py") == BASE.encode()  # put back
    same, zero, negative, unknown = counts
    assert same == 0
    assert zero == 1  # 0 is among the planned inputs (an int edge), and only it changed
    assert negative is not None and negative > 2
    assert unknown is None


def test_a_function_the_probes_cannot_find_is_not_measured(tmp_path: Path) -> None:
    write_tree(tmp_path, {"calc.py": BASE})
    with LocalSandbox().start(tmp_path) as session:
        counts = behaviour_changes(
            session, sys.executable, path="calc.py", function="absent", base_text=BASE,
            variants=[BASE, BASE], existing_tests={},
        )  # fmt: skip
    assert counts == [None, None]
