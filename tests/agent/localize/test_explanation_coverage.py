"""What a failing assert's explanation runs is not the failing test's coverage: pytest's rewritten
assert calls the operands' __repr__ and, for lists, their items' __eq__ only because the test
failed. Counted, a project's __repr__ would be the line "only failing tests run" and outrank the
bug. Real runs of the per-test tracer in the local sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selfheal.agent.localize.spectrum import localize
from selfheal.agent.prepare import run_baseline
from tests.agent.healrun import heal_run

MONEY = """
    class Money:
        def __init__(self, cents):
            self.cents = cents

        def __eq__(self, other):
            return isinstance(other, Money) and self.cents == other.cents

        def __repr__(self):
            return f"Money({self.cents})"


    def add(a, b):
        return Money(a.cents - b.cents)


    def total(items):
        return [Money(i.cents) for i in items]
    """
REPR_LINE = 9  # `return f"Money({self.cents})"`
EQ_LINE = 6  # `return isinstance(other, Money) and ...`
BUG_LINE = 13  # `return Money(a.cents - b.cents)`


@contextmanager
def baseline_of(repo: Path) -> Iterator[tuple]:
    with heal_run(repo) as run:
        yield run_baseline(run.state)


def test_the_explanation_of_a_failing_assert_counts_for_no_test(make_repo):
    repo = make_repo({
        "shop/__init__.py": "",
        "shop/money.py": MONEY,
        "tests/test_money.py": """
            from shop.money import Money, add, total


            def test_add():
                assert add(Money(1), Money(2)) == Money(3)


            def test_add_zero():
                assert add(Money(0), Money(0)).cents == 0


            def test_total_of_a_list():
                assert total([Money(1), Money(2)]) == [Money(1), Money(5)]
            """,
    })  # fmt: skip
    with baseline_of(repo) as (baseline, traced):
        assert sorted(baseline.failing) == [
            "tests/test_money.py::test_add",
            "tests/test_money.py::test_total_of_a_list",
        ]
        assert traced is not None
        add_lines = traced.tests["tests/test_money.py::test_add"]["shop/money.py"]
        list_lines = traced.tests["tests/test_money.py::test_total_of_a_list"]["shop/money.py"]
    # what the test ran: add, Money.__init__ and the comparison the assert makes
    assert {BUG_LINE, EQ_LINE, 3} <= add_lines
    # what only the failure report ran: the reprs of both sides
    assert REPR_LINE not in add_lines
    assert REPR_LINE not in list_lines
    assert EQ_LINE in list_lines  # the list comparison itself calls __eq__: the test ran it
    found = localize(
        failing=baseline.failing,
        passing=baseline.passing,
        outcomes=baseline.outcomes,
        coverage=traced,
        sources={"shop/money.py": (repo / "shop/money.py").read_text(encoding="utf-8")},
        root=str(repo),
    )
    ranked = [(line.file, line.line) for line in found.lines]
    assert ("shop/money.py", REPR_LINE) not in ranked


def test_a_repr_the_test_itself_calls_is_its_coverage(make_repo):
    repo = make_repo({
        "shop/__init__.py": "",
        "shop/money.py": MONEY,
        "tests/test_money.py": """
            from shop.money import Money, add


            def test_shown():
                assert repr(add(Money(1), Money(2))) == "Money(3)"
            """,
    })  # fmt: skip
    with baseline_of(repo) as (baseline, traced):
        assert baseline.failing == ["tests/test_money.py::test_shown"]
        assert traced is not None
        lines = traced.tests["tests/test_money.py::test_shown"]["shop/money.py"]
    assert {BUG_LINE, REPR_LINE} <= lines
