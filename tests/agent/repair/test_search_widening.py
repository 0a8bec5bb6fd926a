"""The search widens to weakly suspicious lines only when the first lines give no fix and the
budget is not spent. Candidates are screened by running the patched module's code on the tests'
own calls, in this process."""

from __future__ import annotations

import textwrap

from selfheal.agent.localize.spectrum import Localization, SuspiciousLine, Target
from selfheal.agent.repair.edits import Candidate, apply_edits
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.search import SearchSettings, SearchStrategy
from selfheal.agent.repair.strategy import Budget, RepairContext, Screening

SOURCE = textwrap.dedent(
    """
    def label(n):
        prefix = "item"
        return prefix + "-" + str(n)


    def count(xs):
        return len(xs) - 1


    def unused(xs):
        return xs[0]
    """
).lstrip()
TARGET = "tests/test_m.py::test_count"
PASSING = "tests/test_m.py::test_label"
CHECKS = {TARGET: "count([1, 2]) == 2", PASSING: 'label(1) == "item-1"'}


def context(source: str = SOURCE, target_check: str | None = None) -> RepairContext:
    def line(n: int, score: float, function: str) -> SuspiciousLine:
        return SuspiciousLine(
            file="m.py", line=n, score=score, ochiai=score, traceback=0.0, function=function
        )

    # `label` first (only the failing test ran it, say), `count` at a fifth of it, `unused` far below
    lines = (line(2, 1.0, "label"), line(3, 1.0, "label"), line(7, 0.2, "count"), line(11, 0.01, "unused"))
    localization = Localization(lines=lines, targets=(Target("m.py", "label", 2, 1.0),), had_coverage=True)
    return RepairContext(
        sources={"m.py": source}, localization=localization, targets=(TARGET,), passing=(PASSING,),
        coverage=None, durations={}, hints=Hints(), seed=0, baseline_messages={TARGET: "assert 1 == 2"},
    )  # fmt: skip


def screen_with(checks: dict[str, str]):
    screened: list[Candidate] = []

    def screen(candidate: Candidate) -> Screening:
        screened.append(candidate)
        namespace: dict = {}
        exec(apply_edits({"m.py": SOURCE}, candidate.edits)["m.py"], namespace)
        passed = set()
        for test, check in checks.items():
            try:
                if eval(check, namespace):
                    passed.add(test)
            except Exception:
                pass
        return Screening(
            candidate=candidate,
            fixed=frozenset({TARGET} & passed),
            still_failing=frozenset({TARGET} - passed),
            broken=frozenset({PASSING} - passed),
        )

    return screen, screened


def test_the_first_pass_sees_the_first_lines_and_the_widened_pass_only_the_next_ones():
    strategy = SearchStrategy()
    first = {c.line for c in strategy.candidates(context())}
    wide = {c.line for c in strategy.candidates(context(), wide=True)}
    assert first == {2, 3}
    assert wide == {7}  # not the first pass's again, and not below the widened floor (line 11)


def test_a_fix_at_a_weakly_suspicious_line_is_found_by_widening():
    screen, screened = screen_with(CHECKS)
    outcome = SearchStrategy().repair(context(), screen, Budget(max_candidates=1500, max_seconds=60))
    assert outcome.widened
    assert [s.candidate.description for s in outcome.plausible] == ["m.py:7: `len(xs) - 1` -> `len(xs)`"]
    first_pass = len(SearchStrategy().candidates(context()))
    assert [c.line for c in screened[:first_pass]] == [c.line for c in SearchStrategy().candidates(context())]
    assert all(c.line == 7 for c in screened[first_pass:] if not c.parts)


def test_no_widening_when_the_first_lines_hold_a_fix():
    checks = {TARGET: 'label(2) == "item2"', PASSING: "count([]) == -1"}
    screen, screened = screen_with(checks)
    outcome = SearchStrategy().repair(context(), screen, Budget(max_candidates=1500, max_seconds=60))
    assert not outcome.widened
    assert outcome.plausible
    assert {c.line for c in screened} <= {2, 3}


def test_no_widening_once_the_budget_is_spent():
    screen, screened = screen_with(CHECKS)
    outcome = SearchStrategy().repair(context(), screen, Budget(max_candidates=5, max_seconds=60))
    assert not outcome.widened and not outcome.plausible
    assert len(screened) == 5 and {c.line for c in screened} <= {2, 3}
    assert outcome.stopped_because == "candidate budget of 5 spent"


def test_the_widened_pass_is_a_short_look():
    screen, screened = screen_with({TARGET: "count([1, 2]) == 99", PASSING: CHECKS[PASSING]})
    settings = SearchSettings(wide_candidates=3)
    outcome = SearchStrategy(settings).repair(context(), screen, Budget(max_candidates=1500, max_seconds=60))
    assert outcome.widened and not outcome.plausible
    wide = [c for c in screened if c.line == 7]
    assert len(wide) == 3
    assert wide == SearchStrategy(settings).candidates(context(), wide=True)[:3]
