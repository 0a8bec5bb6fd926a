"""The search's use of expression synthesis: capped per heal, ranked by the failing assertion."""

from __future__ import annotations

import textwrap

import pytest

from selfheal.agent.localize.spectrum import Localization, SuspiciousLine, Target
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.search import SearchSettings, SearchStrategy
from selfheal.agent.repair.strategy import RepairContext

SOURCE = textwrap.dedent("""
    class Fader:
        def __init__(self, floor, ceiling):
            self.floor = floor
            self.ceiling = ceiling
            self.level = floor

        def raise_by(self, steps):
            self.level = self.level + steps
            return self.level

        def lower_by(self, steps):
            self.level = self.level - steps
            return self.level
""").lstrip()
TEST = textwrap.dedent("""
    def test_ceiling():
        fader = Fader(0, 10)
        fader.raise_by(6)
        assert fader.raise_by(7) == 10
""")


def context(message: str) -> RepairContext:
    lines = tuple(
        SuspiciousLine(file="fader.py", line=n, score=1.0 - n / 100, ochiai=1.0, traceback=0.0, function="f")
        for n in (8, 9, 12, 13)
    )
    localization = Localization(
        lines=lines, targets=(Target(file="fader.py", function="raise_by", line=8, suspiciousness=1.0),),
        had_coverage=True,
    )  # fmt: skip
    return RepairContext(
        sources={"fader.py": SOURCE}, localization=localization, targets=("tests/test_f.py::test_ceiling",),
        passing=(), coverage=None, durations={}, hints=Hints(), seed=0,
        baseline_messages={"tests/test_f.py::test_ceiling": message},
        target_tests={"tests/test_f.py::test_ceiling": TEST},
    )  # fmt: skip


def synthesized(candidates) -> list[str]:
    return [c.description for c in candidates if c.family.startswith("synthesis-")]


def test_the_cap_per_heal_bounds_the_family_across_statements():
    uncapped = synthesized(SearchStrategy().candidates(context("assert 13 == 10")))
    capped_search = SearchStrategy(SearchSettings(max_synthesized=30))
    capped = synthesized(capped_search.candidates(context("assert 13 == 10")))
    assert len(uncapped) > 40
    # 30 generated; a candidate another family also makes keeps that family's name
    assert 24 <= len(capped) <= 30
    assert set(capped) < set(uncapped)


def test_an_expected_value_at_a_bound_the_test_used_puts_the_clamps_first():
    with_bound = [c for c in SearchStrategy().candidates(context("assert 13 == 10")) if c.line == 8]
    ours = [c for c in with_bound if c.family.startswith("synthesis-")]
    best = [c for c in ours if c.score == ours[0].score]
    assert {c.family for c in best} == {"synthesis-clamp"}
    assert "fader.py:8: value `self.level + steps` -> `min(self.level + steps, self.ceiling)`" in {
        c.description for c in best
    }
    unexplained = [
        c
        for c in SearchStrategy().candidates(context("TypeError: unsupported operand"))
        if c.line == 8 and c.family == "synthesis-clamp"
    ]
    assert best[0].score == pytest.approx(unexplained[0].score / 0.3)  # evidence weight 1.0, else 0.3
