"""Which passing tests run under the tracer on a large suite (localize/tracing.py)."""

from __future__ import annotations

from selfheal.agent.localize.tracing import (
    TracePlan,
    function_of,
    passing_to_trace,
    sources_of_tests,
    suspect_names,
)

TEST_FILE = """
from shop.cart import Cart, total


class TestBase:
    def test_total(self):
        assert total([1, 2]) == 3

    def test_cart_add(self):
        assert Cart().add(1).items == [1]


def test_unrelated():
    assert 1 + 1 == 2


def test_cart_and_total():
    assert total(Cart().add(2).items) == 2
"""


def test_suspect_names_keep_public_classes_and_functions_in_rank_order():
    functions = ["Cart.__init__", "total", "<module>", "Cart.add", "_helper", "Outer.<locals>.inner"]
    assert suspect_names(functions) == ["Cart", "total", "add", "Outer", "inner"]


def test_function_of_drops_classes_and_parameters():
    assert function_of("tests/t.py::TestA::test_b[1-2]") == ("tests/t.py", "test_b")
    assert function_of("tests/t.py::test_c") == ("tests/t.py", "test_c")


def test_test_sources_index_methods_and_functions_by_their_own_name():
    sources = sources_of_tests({"tests/test_cart.py": TEST_FILE, "tests/broken.py": "def ("})
    assert sorted(sources) == [
        ("tests/test_cart.py", "test_cart_add"),
        ("tests/test_cart.py", "test_cart_and_total"),
        ("tests/test_cart.py", "test_total"),
        ("tests/test_cart.py", "test_unrelated"),
    ]
    assert "total([1, 2]) == 3" in sources[("tests/test_cart.py", "test_total")]


def test_tests_that_name_more_suspects_come_first_then_the_failing_files_fastest_first():
    other = "def test_far():\n    pass\n"
    sources = sources_of_tests({"tests/test_cart.py": TEST_FILE, "tests/test_other.py": other})
    passing = [
        # an inherited test: its id names the subclass, its source is the base's method
        "tests/test_cart.py::TestSub::test_total",
        "tests/test_cart.py::TestBase::test_cart_add",
        "tests/test_cart.py::test_unrelated",
        "tests/test_cart.py::test_cart_and_total",
        "tests/test_other.py::test_far",
    ]
    durations = {
        "tests/test_cart.py::TestSub::test_total": 0.2,
        "tests/test_cart.py::TestBase::test_cart_add": 0.1,
        "tests/test_cart.py::test_unrelated": 0.05,
        "tests/test_cart.py::test_cart_and_total": 0.3,
        "tests/test_other.py::test_far": 0.01,
    }
    chosen = passing_to_trace(
        failing=["tests/test_cart.py::test_broken"],
        passing=passing,
        durations=durations,
        names=["total", "Cart"],
        sources=sources,
        plan=TracePlan(max_tests=10, max_seconds=10.0),
    )
    # total (weight 1) and Cart (1/2): both 1.5, then total 1.0, then Cart 0.5, then the
    # failing test's file; a test of another file that names no suspect is not traced
    assert chosen == [
        "tests/test_cart.py::test_cart_and_total",
        "tests/test_cart.py::TestSub::test_total",
        "tests/test_cart.py::TestBase::test_cart_add",
        "tests/test_cart.py::test_unrelated",
    ]


def test_the_plan_bounds_the_count_and_the_seconds_traced():
    sources = sources_of_tests({"tests/test_cart.py": TEST_FILE})
    passing = [
        "tests/test_cart.py::TestBase::test_total",
        "tests/test_cart.py::TestBase::test_cart_add",
        "tests/test_cart.py::test_cart_and_total",
    ]
    durations = dict(zip(passing, (0.4, 0.1, 0.5), strict=True))
    common = dict(
        failing=["tests/test_cart.py::test_x"], passing=passing, durations=durations, sources=sources
    )
    by_count = passing_to_trace(names=["total", "Cart"], plan=TracePlan(max_tests=2), **common)
    assert by_count == [
        "tests/test_cart.py::test_cart_and_total",
        "tests/test_cart.py::TestBase::test_total",
    ]
    # 0.5 s spent on the first; the 0.4 s one would pass 0.7 s, the 0.1 s one still fits
    by_time = passing_to_trace(names=["total", "Cart"], plan=TracePlan(max_seconds=0.7), **common)
    assert by_time == [
        "tests/test_cart.py::test_cart_and_total",
        "tests/test_cart.py::TestBase::test_cart_add",
    ]


def test_a_suite_of_few_written_tests_is_traced_in_the_baseline():
    files = {"tests/test_cart.py": TEST_FILE, "tests/test_async.py": "async def test_io():\n    pass\n"}
    assert TracePlan(in_baseline_below=5).traces_baseline(files) is True  # 4 + 1 written
    assert TracePlan(in_baseline_below=4).traces_baseline(files) is False


def test_a_suite_of_a_few_hundred_is_traced_whole():
    plan = TracePlan(whole_suite_below=300)
    assert plan.traces_whole_suite(300) is True
    assert plan.traces_whole_suite(301) is False
