"""Coverage where it is needed (prepare.trace_failures): real repos, real runs in the local
sandbox. A small suite is traced whole; on a large one the failing tests are traced over every
source file, then the passing tests that name a suspect, over the files the failing tests ran."""

from __future__ import annotations

from selfheal.agent.events import Trace
from selfheal.agent.localize.tracing import TracePlan
from selfheal.agent.prepare import run_baseline, trace_failures
from tests.agent.healrun import heal_run

REPO = {
    "shop/__init__.py": "",
    "shop/prices.py": """
        def with_tax(amount):
            return amount + amount * 10 // 100


        def discount(amount, percent):
            return amount - amount * percent // 10
        """,
    "shop/labels.py": """
        def label(name):
            return name.title()
        """,
    "tests/test_prices.py": """
        from shop.prices import discount, with_tax


        def test_tax():
            assert with_tax(200) == 220


        def test_discount_half():
            assert discount(200, 50) == 100


        def test_discount_none():
            assert discount(200, 0) == 200
        """,
    "tests/test_labels.py": """
        from shop.labels import label


        def test_label():
            assert label("tea cup") == "Tea Cup"


        def test_label_empty():
            assert label("") == ""
        """,
}
FAILING = "tests/test_prices.py::test_discount_half"


def coverage_event(trace: Trace) -> dict:
    (event,) = [e for e in trace.events if e.node == "coverage"]
    return event.data


def test_a_small_suite_is_traced_in_the_baseline_run_itself(make_repo):
    trace = Trace()
    with heal_run(make_repo(REPO), trace) as run:
        baseline, traced = run_baseline(run.state)  # five test functions: at most 100
        assert traced is not None and sorted(traced.tests) == sorted(baseline.outcomes)
        assert trace_failures(run.state, baseline, [FAILING], traced=traced) is traced
    assert next(e for e in trace.events if e.node == "baseline").data["coverage"] is True
    assert [e for e in trace.events if e.node == "coverage"] == []


def test_past_the_bound_the_baseline_runs_without_a_tracer_and_a_few_hundred_are_traced_whole(
    make_repo,
):
    untraced = TracePlan(in_baseline_below=4)
    trace = Trace()
    with heal_run(make_repo(REPO), trace) as run:
        baseline, traced = run_baseline(run.state, untraced)
        assert (baseline.failing, traced) == ([FAILING], None)
        coverage = trace_failures(run.state, baseline, [FAILING], TracePlan(in_baseline_below=4))
    assert coverage is not None
    assert sorted(coverage.tests) == sorted(baseline.outcomes)
    assert coverage.tests[FAILING]["shop/prices.py"] == frozenset({6})
    assert coverage_event(trace) | {"duration_s": 0} == {
        "passing": 4, "traced_failing": 1, "traced_passing": 4, "whole_suite": True, "duration_s": 0,
    }  # fmt: skip


def test_a_large_suite_traces_the_failing_tests_then_the_passing_tests_of_the_suspects(make_repo):
    trace = Trace()
    with heal_run(make_repo(REPO), trace) as run:
        plan = TracePlan(in_baseline_below=0, whole_suite_below=2, max_tests=1)
        baseline, _ = run_baseline(run.state, plan)
        coverage = trace_failures(run.state, baseline, [FAILING], plan)
    assert coverage is not None
    # the failing test over every source file; one passing test (the plan's bound): of those
    # that name the suspect `discount`, the fastest; the label tests name no suspect and live
    # in another file, so they are not traced
    traced = sorted(coverage.tests)
    assert traced[0] == "tests/test_prices.py::test_discount_half"
    assert traced[1:] == ["tests/test_prices.py::test_discount_none"]
    only = coverage.tests["tests/test_prices.py::test_discount_none"]
    assert only == {"shop/prices.py": frozenset({6})}
    data = coverage_event(trace)
    assert (data["traced_failing"], data["traced_passing"], data["whole_suite"]) == (1, 1, False)
    assert (data["suspects"], data["files"]) == (["discount"], ["shop/prices.py"])
