"""The overfit review: risks in what a patch added, none for an honest fix."""

from __future__ import annotations

from selfheal.agent.repair.overfit import overfit_risks

BASE = '''\
import os
import sys


def total(prices, tax):
    """The sum with tax, rounded to cents."""
    return round(sum(prices), 2)


class Cart:
    def weight(self, items, unit="kg"):
        return sum(i.weight for i in items)
'''
TESTS = """\
import pytest

from shop import Cart, total


def test_total_adds_tax():
    assert total([12.5, 20.0], 0.2) == 39.0


class TestCart:
    @pytest.mark.parametrize("grams", [1250, 3400])
    def test_weight_in_grams(self, grams):
        assert Cart().weight([grams], unit="g") == grams / 1000
"""
FAILING = {"tests/test_shop.py::test_total_adds_tax": TESTS}


def review(patched: str, failing: dict[str, str] = FAILING) -> list[tuple[str, str]]:
    return [(r.kind, r.function) for r in overfit_risks({"shop.py": BASE}, {"shop.py": patched}, failing)]


def fix(body: str) -> str:
    return BASE.replace("    return round(sum(prices), 2)\n", body)


def test_an_honest_fix_raises_nothing() -> None:
    assert review(fix("    return round(sum(prices) * (1 + tax), 2)\n")) == []


def test_the_tested_input_special_cased_is_a_test_literal_risk() -> None:
    patched = fix(
        "    if prices == [12.5, 20.0]:\n        return 39\n    return round(sum(prices) * (1 + tax), 2)\n"
    )
    risks = overfit_risks({"shop.py": BASE}, {"shop.py": patched}, FAILING)
    assert [(r.kind, r.function) for r in risks] == [("test_literal", "shop.py: total")]
    # 39 and 39.0 are one value to the test's ==; 20.0 is the test's too
    assert "12.5, 20, 39" in risks[0].detail


def test_literals_already_in_the_function_are_the_projects_own() -> None:
    base = BASE.replace("return round(sum(prices), 2)", "return round(sum(prices) + 12.5, 2)")
    patched = base.replace("+ 12.5", "* (1 + tax) + 12.5")
    assert [r.kind for r in overfit_risks({"shop.py": base}, {"shop.py": patched}, FAILING)] == []


def test_parametrize_values_of_a_method_test_count_as_the_tests_literals() -> None:
    failing = {"tests/test_shop.py::TestCart::test_weight_in_grams[1250]": TESTS}
    patched = BASE.replace(
        "        return sum(i.weight for i in items)\n",
        "        if items == [1250]:\n            return 1.25\n        return sum(i.weight for i in items)\n",
    )
    # `unit` was never read: a function the patch touches answers for all its parameters
    assert review(patched, failing) == [
        ("test_literal", "shop.py: Cart.weight"),
        ("ignored_parameter", "shop.py: Cart.weight"),
    ]


def test_reading_the_process_circumstances_is_a_risk_wherever_it_is_added() -> None:
    in_function = fix("    if 'pytest' in sys.modules:\n        return round(sum(prices) * (1 + tax), 2)\n"
                      "    return round(sum(prices), 2)\n")  # fmt: skip
    assert review(in_function) == [("circumstances", "shop.py: total")]
    at_import = BASE.replace("import sys\n", "import sys\n_UNDER_TEST = os.getenv('PYTEST_CURRENT_TEST')\n")
    assert review(at_import) == [("circumstances", "shop.py: module level")]


def test_circumstances_the_function_read_before_are_not_new() -> None:
    base = BASE.replace(
        '"""The sum with tax, rounded to cents."""', 'digits = int(os.environ.get("DIGITS", 2))'
    )
    patched = base.replace("return round(sum(prices), 2)", "return round(sum(prices) * (1 + tax), digits)")
    assert [r.kind for r in overfit_risks({"shop.py": base}, {"shop.py": patched}, FAILING)] == []


def test_swallowing_every_exception_is_a_risk_but_a_narrow_or_reraising_handler_is_not() -> None:
    computed = "    try:\n        return round(sum(prices) * (1 + tax), 2)\n"
    swallow = fix(computed + "    except Exception:\n        return 0\n")
    assert review(swallow) == [("swallowed", "shop.py: total")]
    narrow = fix(computed + "    except TypeError:\n        return 0\n")
    assert review(narrow) == []
    reraise = fix(
        "    try:\n        return round(sum(prices) * (1 + tax), 2)\n    except BaseException:\n"
        "        print('failed')\n        raise\n"
    )
    assert review(reraise) == []


def test_a_parameter_the_patched_function_never_reads_is_a_risk() -> None:
    assert review(fix("    return round(sum(prices) * 1.2, 2)\n")) == [
        ("ignored_parameter", "shop.py: total")
    ]


def test_unchanged_functions_and_stubs_are_not_reviewed() -> None:
    # Cart.weight ignores `unit` from the start; the patch does not touch it
    assert review(fix("    return round(sum(prices) * (1 + tax), 2)\n")) == []
    stub = BASE + "\n\ndef hook(event, context):\n    ...\n"
    assert review(stub) == []


def test_files_that_do_not_parse_or_are_not_python_are_skipped() -> None:
    assert overfit_risks({"a.py": "x = 1\n"}, {"a.py": "def (:\n", "notes.txt": "39"}, FAILING) == []


# A check the package keeps for its tests (toolz keeps `raises` in toolz/utils.py): the failing
# test asserts what it answers about a lambda that runs the code under test. A whole heal of this
# package is in tests/agent/test_preference.py.
UTILS = '''\
def raises(err, thunk):
    """Whether calling `thunk` raises `err`: the package's tests check refusals with it."""
    try:
        thunk()
        return False
    except err:
        return True


MISSING = object()
'''
CHUNKS = '''\
from pkg.utils import MISSING


def chunks(size, items, fill=MISSING):
    """`items` in lists of `size`; the last one padded with `fill` when it is given."""
    out = []
    for start in range(0, len(items), size):
        part = list(items[start : start + size])
        if fill is not MISSING:
            part += [fill] * (size - len(part))
        out.append(part)
    return out
'''
CHECKED = """\
from pkg.chunks import chunks
from pkg.utils import raises


def test_a_size_below_one_is_refused():
    assert chunks(2, [1, 2, 3]) == [[1, 2], [3]]
    assert raises(ValueError, lambda: chunks(0, [1, 2, 3]))
"""
CHECKED_ID = {"tests/test_chunks.py::test_a_size_below_one_is_refused": CHECKED}
SOURCES = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/chunks.py": CHUNKS}


def test_changing_the_check_the_failing_test_asserts_with_is_a_risk_when_only_tests_call_it() -> None:
    always = UTILS.replace("        return False\n", "        return True\n")
    risks = overfit_risks(SOURCES, {"pkg/utils.py": always}, CHECKED_ID, SOURCES)
    assert [(r.kind, r.function) for r in risks] == [("test_check", "pkg/utils.py: raises")]
    assert "`raises(ValueError, lambda: chunks(0, [1, 2, 3]))`" in risks[0].detail
    assert "nothing outside the tests calls `raises`" in risks[0].detail


def test_a_fix_of_the_code_the_check_runs_is_no_test_check_risk() -> None:
    refusal = "    if size < 1:\n        raise ValueError(size)\n"
    guarded = CHUNKS.replace("    out = []\n", refusal + "    out = []\n")
    assert overfit_risks(SOURCES, {"pkg/chunks.py": guarded}, CHECKED_ID, SOURCES) == []


def test_a_checked_function_the_code_itself_calls_is_code_not_the_tests_check() -> None:
    always = UTILS.replace("        return False\n", "        return True\n")
    calling = {**SOURCES, "pkg/chunks.py": CHUNKS.replace("import MISSING\n", "import MISSING, raises\n")}
    assert overfit_risks(calling, {"pkg/utils.py": always}, CHECKED_ID, calling) == []
    exported = {**SOURCES, "pkg/__init__.py": '__all__ = ["raises"]\n'}
    assert overfit_risks(exported, {"pkg/utils.py": always}, CHECKED_ID, exported) == []


def test_an_assert_without_code_handed_over_does_not_make_a_check() -> None:
    # `assert is_sorted(x)` checks a value the test computed: is_sorted may well be the code under test
    plain = {"tests/test_chunks.py::test_sorted": "def test_sorted():\n    assert raises(ValueError, 3)\n"}
    always = UTILS.replace("        return False\n", "        return True\n")
    assert overfit_risks(SOURCES, {"pkg/utils.py": always}, plain, SOURCES) == []


def test_a_checking_call_in_a_method_of_a_test_class_is_read_from_its_indented_text() -> None:
    method = "    def test_refused(self):\n        assert not raises(KeyError, lambda: {}.get('k'))\n"
    always = UTILS.replace("        return False\n", "        return True\n")
    risks = overfit_risks(SOURCES, {"pkg/utils.py": always}, {"tests/t.py::T::test_refused": method}, SOURCES)
    assert [r.kind for r in risks] == ["test_check"]
