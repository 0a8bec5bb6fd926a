"""The search's hook for recalled order: a recalled family and site rank first, nothing is dropped."""

from __future__ import annotations

from selfheal.agent.localize.spectrum import Localization, SuspiciousLine, Target
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.recalled import RecalledOrder
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.repair.strategy import RepairContext

SOURCE = "def clamp(value, low, high):\n    return max(low, max(value, high))\n"


def context(recalled: RecalledOrder) -> RepairContext:
    line = SuspiciousLine(file="gauge.py", line=2, score=1.0, ochiai=1.0, traceback=1.0, function="clamp")
    localization = Localization(
        lines=(line,), targets=(Target(file="gauge.py", function="clamp", line=2, suspiciousness=1.0),),
        had_coverage=True,
    )  # fmt: skip
    return RepairContext(
        sources={"gauge.py": SOURCE}, localization=localization, targets=("t::a",), passing=(),
        coverage=None, durations={}, hints=Hints(), seed=0, recalled=recalled,
    )  # fmt: skip


def test_a_recalled_family_is_screened_first_and_nothing_is_dropped():
    plain = SearchStrategy().candidates(context(RecalledOrder()))
    assert [c.family for c in plain[:3]] == ["builtin-swap", "builtin-swap", "guard"]
    recalled = SearchStrategy().candidates(context(RecalledOrder(families={"off-by-one": 1.0})))
    assert {c.family for c in recalled[:3]} == {"off-by-one"}
    assert sorted(c.description for c in recalled) == sorted(c.description for c in plain)


def test_the_boost_grows_with_the_weight_and_the_site():
    order = RecalledOrder(families={"off-by-one": 0.5}, sites={("gauge.py", "clamp"): 1.0})
    assert order.boost("off-by-one", "gauge.py", "clamp") == 1.0 + 2.0 * 0.5 + 1.0 + 0.25
    assert order.boost("name", "gauge.py", "other") == 1.25
    assert order.boost("name", "other.py", "clamp") == 1.0
    assert not RecalledOrder() and order
