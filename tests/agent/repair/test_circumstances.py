"""Which reads of the process's circumstances tell a test run apart (verdict rule 12), and when the
failing tests are about that circumstance themselves."""

from __future__ import annotations

from selfheal.agent.repair.circumstances import circumstances_tests_touch, detect_test_run

BASE = '''\
import inspect
import os
import sys


def total(prices, tax):
    """The sum with tax, rounded to cents."""
    return round(sum(prices), 2)
'''
FIXED = "round(sum(prices) * (1 + tax), 2)"
PLAIN_TEST = (
    "from shop import total\n\n\ndef test_total_adds_tax():\n    assert total([10.0, 20.0], 0.1) == 33.0\n"
)
FAILING = {"tests/test_shop.py::test_total_adds_tax": PLAIN_TEST}


def patched(body: str = "", top: str = "") -> str:
    """BASE with `body` at the start of total() and `top` after the imports."""
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    text = BASE.replace("    return round(sum(prices), 2)\n", indented + "    return round(sum(prices), 2)\n")
    return text.replace("import sys\n", "import sys\n" + top)


def detected(text: str, failing: dict[str, str] = FAILING) -> list[tuple[str, str, tuple[str, ...]]]:
    found = detect_test_run({"shop.py": BASE}, {"shop.py": text}, failing)
    return [(d.circumstance, d.function, d.reads) for d in found]


def test_each_way_of_noticing_the_test_runner_is_detected() -> None:
    cases = {
        "if 'pytest' in sys.modules:": ("loaded modules", ("sys.modules",)),
        "if 'PYTEST_CURRENT_TEST' in os.environ:": ("environment", ("os.environ",)),
        "if os.getenv('PYTEST_XDIST_WORKER'):": ("environment", ("os.getenv",)),
        "if any('selfheal' in a for a in sys.argv):": ("arguments", ("sys.argv",)),
        "if sys.modules.get('_pytest') is not None:": ("loaded modules", ("sys.modules",)),
        "if 'unittest' in sys.modules:": ("loaded modules", ("sys.modules",)),
    }
    for condition, (circumstance, reads) in cases.items():
        body = f"{condition}\n    return {FIXED}"
        assert detected(patched(body)) == [(circumstance, "shop.py: total", reads)], condition


def test_the_stack_is_detection_whatever_it_looks_for() -> None:
    deep = f"if len(inspect.stack()) > 30:\n    return {FIXED}"
    assert detected(patched(deep)) == [("stack", "shop.py: total", ("inspect.stack",))]
    frame = f"if sys._getframe(1).f_code.co_name.startswith('test_'):\n    return {FIXED}"
    assert detected(patched(frame)) == [("stack", "shop.py: total", ("sys._getframe",))]


def test_a_runner_name_read_at_import_is_detected_in_the_module_scope() -> None:
    aware = patched(top="_SCREEN = sys.argv[0].endswith('selfheal_screen_worker.py')\n")
    assert detected(aware) == [("arguments", "shop.py: module level", ("sys.argv",))]


def test_a_plain_read_of_the_environment_or_arguments_is_not_detection() -> None:
    """A real fix may read the environment (a setting) or the arguments: without a runner's name
    beside them they say nothing about a test run (the overfit review still lists them)."""
    home = patched("tax = tax if tax is not None else float(os.environ.get('SHOP_TAX', '0'))")
    assert detected(home) == []
    program = patched("name = sys.argv[0]")
    assert detected(program) == []
    # a runner's name elsewhere in the patch, in another scope, is not beside the read
    elsewhere = patched("tax = float(os.environ.get('SHOP_TAX', tax))", top="PLUGIN = 'pytest_shop'\n")
    assert detected(elsewhere) == []


def test_reads_the_base_had_in_the_same_scope_are_not_the_patchs() -> None:
    base = BASE.replace('"""The sum with tax, rounded to cents."""', "debug = 'pytest' in sys.modules")
    text = base.replace("return round(sum(prices), 2)", f"return {FIXED}")
    assert detect_test_run({"shop.py": base}, {"shop.py": text}, FAILING) == []


def test_a_failing_test_about_the_circumstance_makes_reading_it_no_detection() -> None:
    env_test = (
        "from shop import total\n\n\ndef test_total_adds_tax(monkeypatch):\n"
        "    monkeypatch.setenv('PYTEST_SHOP_TAX', '0.1')\n    assert total([10.0, 20.0], None) == 33.0\n"
    )
    reads_env = patched("tax = float(os.environ['PYTEST_SHOP_TAX']) if tax is None else tax")
    about_env = {"tests/test_shop.py::test_total_adds_tax": env_test}
    assert detected(reads_env, about_env) == []
    # ... but not about another: the same test does not make reading sys.modules for pytest fine
    assert detected(patched(f"if 'pytest' in sys.modules:\n    return {FIXED}"), about_env) == [
        ("loaded modules", "shop.py: total", ("sys.modules",))
    ]
    assert detected(reads_env) == [("environment", "shop.py: total", ("os.environ",))]


def test_what_the_tests_touch_is_read_from_their_reads_set_ups_and_patched_names() -> None:
    tests = {
        "def test_a(monkeypatch):\n    monkeypatch.delenv('X')\n": {"environment"},
        "import sys\n\ndef test_a(monkeypatch):\n    monkeypatch.setattr(sys, 'argv', ['x'])\n": {
            "arguments"
        },
        "@mock.patch.dict('os.environ', {'A': '1'})\ndef test_a():\n    pass\n": {"environment"},
        "import inspect\n\ndef test_a():\n    assert inspect.currentframe()\n": {"stack"},
        PLAIN_TEST: set(),
        "def broken(:\n": set(),
    }
    for text, touched in tests.items():
        assert circumstances_tests_touch({"t": text}) == touched, text
