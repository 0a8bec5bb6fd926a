"""The fork-per-candidate screening worker, against real repos in the real local sandbox."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from selfheal.agent.run.screen import ForkScreener, SubprocessScreener
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.sandbox import LocalSandbox

REPO = {
    "shop/__init__.py": "",
    "shop/prices.py": """
        import functools

        TAX = 10


        def with_tax(amount):
            return amount + amount * TAX // 100


        @functools.lru_cache(maxsize=None)
        def rounded(amount):
            return amount // 10 * 10


        class Cart:
            def __init__(self):
                self.items = []

            def add(self, price):
                self.items.append(price)
                return self

            def total(self):
                return sum(self.items) - 1

            @property
            def count(self):
                return len(self.items)

        def lazy_total(cart):
            from shop import lazy

            return lazy.double(cart.total())


        class Point:
            __slots__ = ("x", "y")

            def __init__(self, x, y):
                self.x = x
                self.y = y

            def manhattan(self):
                return abs(self.x) - abs(self.y)
        """,
    "shop/lazy.py": """
        def double(x):
            return x * 3
        """,
    "tests/test_prices.py": """
        from shop.prices import TAX, Cart, Point, lazy_total, rounded, with_tax


        def test_tax():
            assert with_tax(200) == 220


        def test_rounded():
            assert rounded(47) == 40


        def test_total():
            assert Cart().add(2).add(3).total() == 5


        def test_count():
            assert Cart().add(1).count == 1


        def test_lazy():
            assert lazy_total(Cart().add(4)) == 8


        def test_tax_constant():
            assert TAX == 10


        def test_noisy():
            print("x" * 100000)
            assert True


        def test_manhattan():
            assert Point(3, -4).manhattan() == 7
        """,
}
TESTS = [
    f"tests/test_prices.py::{name}"
    for name in (
        "test_tax",
        "test_rounded",
        "test_total",
        "test_count",
        "test_lazy",
        "test_tax_constant",
        "test_noisy",
        "test_manhattan",
    )
]


@contextmanager
def screeners(make_repo) -> Iterator[tuple[ForkScreener, SubprocessScreener, dict[str, str]]]:
    repo = make_repo(REPO)
    workspace = Workspace.create(Origin.inspect(repo))
    session = LocalSandbox().start(workspace.root)
    runner = TestRunner(
        session,
        TestCommand.parse("python -m pytest", sys.executable, workspace.root),
        sys.executable,
        timeout=60,
        test_timeout=3,
    )
    base = {p: workspace.base_text(p) for p in ("shop/prices.py", "shop/lazy.py")}
    worker = None
    try:
        worker, why = ForkScreener.start(session, runner, TESTS, base, startup_timeout=60)
        assert worker is not None, why
        yield worker, SubprocessScreener(session, runner, base), base
    finally:
        if worker is not None:
            worker.close()
        session.close()
        workspace.cleanup()


def edit(base: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    assert old in base[path]
    return {path: base[path].replace(old, new, 1)}


def test_the_unpatched_code_screens_like_the_real_run(make_repo):
    with screeners(make_repo) as (worker, plain, _):
        fork = worker.screen({}, TESTS, timeout=30)
        real = plain.screen({}, TESTS, timeout=60)
    failing = {
        "tests/test_prices.py::test_total",
        "tests/test_prices.py::test_lazy",
        "tests/test_prices.py::test_manhattan",
    }
    assert {t for t, o in fork.outcomes.items() if o != "passed"} == failing
    assert fork.outcomes == real.outcomes
    assert "assert 4 == 5" in fork.messages["tests/test_prices.py::test_total"]


@pytest.mark.parametrize(
    ("path", "old", "new", "test", "expected"),
    [
        # a method of a class whose instances the tests create
        ("shop/prices.py", "sum(self.items) - 1", "sum(self.items)", "test_total", "passed"),
        # a function the test module imported by name
        ("shop/prices.py", "amount * TAX // 100", "amount * TAX // 50", "test_tax", "failed"),
        # a module constant, also imported by name into the test module
        ("shop/prices.py", "TAX = 10", "TAX = 11", "test_tax_constant", "failed"),
        # an lru_cache-wrapped function
        ("shop/prices.py", "amount // 10 * 10", "amount // 10 * 10 + 1", "test_rounded", "failed"),
        # a property
        ("shop/prices.py", "return len(self.items)", "return len(self.items) + 1", "test_count", "failed"),
        # a method of a class with __slots__: its instances keep their slots
        (
            "shop/prices.py",
            "abs(self.x) - abs(self.y)",
            "abs(self.x) + abs(self.y)",
            "test_manhattan",
            "passed",
        ),
        # a module nobody imported yet when the worker started
        ("shop/lazy.py", "x * 3", "x * 2", "test_lazy", "failed"),
    ],
)
def test_candidates_change_behaviour_where_the_tests_look(make_repo, path, old, new, test, expected):
    with screeners(make_repo) as (worker, _, base):
        result = worker.screen(edit(base, path, old, new), TESTS, timeout=30)
    assert result.error is None
    assert result.outcomes[f"tests/test_prices.py::{test}"] == expected


def test_two_file_candidate_fixes_the_lazy_test(make_repo):
    with screeners(make_repo) as (worker, _, base):
        changes = {
            **edit(base, "shop/prices.py", "sum(self.items) - 1", "sum(self.items)"),
            **edit(base, "shop/lazy.py", "x * 3", "x * 2"),
        }
        result = worker.screen(changes, TESTS, timeout=30)
    # only the failure neither edit touches is left
    assert {t for t, o in result.outcomes.items() if o != "passed"} == {
        "tests/test_prices.py::test_manhattan"
    }


def test_each_candidate_starts_from_the_clean_base(make_repo):
    with screeners(make_repo) as (worker, _, base):
        worker.screen(edit(base, "shop/prices.py", "TAX = 10", "TAX = 99"), TESTS, timeout=30)
        again = worker.screen({}, TESTS, timeout=30)
    assert again.outcomes["tests/test_prices.py::test_tax_constant"] == "passed"


def test_a_hanging_candidate_times_out_and_the_worker_lives_on(make_repo):
    with screeners(make_repo) as (worker, _, base):
        hang = edit(
            base, "shop/prices.py", "return amount + amount", "while True: pass\n    return amount + amount"
        )
        hung = worker.screen(hang, ["tests/test_prices.py::test_tax"], timeout=2)
        after = worker.screen({}, ["tests/test_prices.py::test_tax"], timeout=30)
    assert hung.outcomes["tests/test_prices.py::test_tax"] == "timeout"
    assert after.outcomes["tests/test_prices.py::test_tax"] == "passed"


def test_a_candidate_that_breaks_at_import_is_a_patch_error(make_repo):
    with screeners(make_repo) as (worker, _, base):
        broken = edit(base, "shop/prices.py", "TAX = 10", "TAX = undefined_name")
        result = worker.screen(broken, ["tests/test_prices.py::test_tax"], timeout=30)
    assert result.error is not None and "NameError" in result.error


def test_a_candidate_that_leaves_the_failure_as_it_was_skips_the_other_tests(make_repo):
    with screeners(make_repo) as (worker, _, base):
        failing = ["tests/test_prices.py::test_total", "tests/test_prices.py::test_lazy"]
        others = [t for t in TESTS if t not in failing]
        before = worker.screen({}, failing, timeout=30)
        assert before.failed(failing[0]) and before.failed(failing[1])
        unchanged = {t: before.messages[t] for t in failing}

        untouched = worker.screen(
            edit(base, "shop/prices.py", "TAX = 10", "TAX = 11"), [*failing, *others], 30, unchanged=unchanged
        )
        # test_lazy's message names a Cart by its address, which differs in each child
        assert sorted(untouched.outcomes) == sorted(failing)
        assert {t: m.splitlines()[0] for t, m in untouched.messages.items()} == {
            "tests/test_prices.py::test_total": "assert 4 == 5",
            "tests/test_prices.py::test_lazy": "assert 9 == 8",
        }
        assert " at 0x" in unchanged["tests/test_prices.py::test_lazy"]

        # the same edit without the request: every test runs, and one of the others breaks
        full = worker.screen(edit(base, "shop/prices.py", "TAX = 10", "TAX = 11"), [*failing, *others], 30)
        assert sorted(full.outcomes) == sorted(TESTS)
        assert full.failed("tests/test_prices.py::test_tax")

        # a failure that moves (one of the two fixed, the other off by a different amount): all run
        moved = worker.screen(
            edit(base, "shop/prices.py", "return sum(self.items) - 1", "return sum(self.items)"),
            [*failing, *others],
            30,
            unchanged=unchanged,
        )
        assert sorted(moved.outcomes) == sorted(TESTS)
        assert moved.passed("tests/test_prices.py::test_total")

        # the failing tests must come first: otherwise nothing is skipped
        reordered = worker.screen(
            edit(base, "shop/prices.py", "TAX = 10", "TAX = 11"), [*others, *failing], 30, unchanged=unchanged
        )
        assert sorted(reordered.outcomes) == sorted(TESTS)
