"""Per-test time limits learned from the baseline: the arithmetic, on outcomes as JUnit gives them."""

from __future__ import annotations

from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.timelimits import TimeLimits, hang_probe

HUNG = "selfheal_pytest_plugin.SelfhealTimeout: test ran longer than 10s (selfheal per-test timeout)"
OUTCOMES = {
    "tests/test_a.py::test_fast": TestOutcome("tests/test_a.py::test_fast", "passed", duration=0.01),
    "tests/test_a.py::test_slow": TestOutcome("tests/test_a.py::test_slow", "passed", duration=0.4),
    "tests/test_a.py::test_wrong": TestOutcome(
        "tests/test_a.py::test_wrong", "failed", "assert 1 == 2", duration=0.02
    ),
    "tests/test_a.py::test_hangs": TestOutcome("tests/test_a.py::test_hangs", "failed", HUNG, duration=10.0),
}


def limits(load: float = 1.0) -> TimeLimits:
    return TimeLimits.from_baseline(OUTCOMES, 12.43, ceiling=60.0, probe=10.0, load=load)


def test_the_tests_the_probe_stopped_are_the_hung_ones():
    found = limits()
    assert found.hung == frozenset({"tests/test_a.py::test_hangs"})
    assert "tests/test_a.py::test_hangs" not in found.durations
    assert found.slowest == 0.4
    assert round(found.startup_s, 2) == 2.0  # 12.43 s of run, 10.43 s of it in the tests


def test_a_screened_test_gets_a_multiple_of_its_duration_above_the_floor():
    assert limits().screen_limits(list(OUTCOMES), load=1.0) == {
        "tests/test_a.py::test_fast": 0.25,  # 5 x 0.01 s is under the floor
        "tests/test_a.py::test_slow": 2.0,  # 5 x 0.4 s
        "tests/test_a.py::test_wrong": 0.25,
        "tests/test_a.py::test_hangs": 2.0,  # no duration of its own: the slowest finished test's
    }


def test_a_test_the_baseline_never_ran_gets_the_slowest_finished_tests_limit():
    assert limits().screen_limit("tests/test_new.py::test_generated", load=1.0) == 2.0


def test_load_raises_the_floor_and_what_the_baseline_measured_idle():
    loaded = limits(load=1.0)
    assert loaded.screen_limit("tests/test_a.py::test_fast", load=4.0) == 0.5  # the floor, x sqrt(4)
    assert loaded.screen_limit("tests/test_a.py::test_slow", load=4.0) == 8.0
    # durations measured under the same load are not scaled again
    same = limits(load=4.0)
    assert same.screen_limit("tests/test_a.py::test_slow", load=4.0) == 2.0


def test_the_users_limit_caps_every_screening_limit():
    capped = TimeLimits.from_baseline(OUTCOMES, 12.43, ceiling=1.5, probe=1.5, load=1.0)
    assert capped.screen_limit("tests/test_a.py::test_slow", load=8.0) == 1.5


def test_a_fresh_pytest_process_is_allowed_its_start_up_under_load():
    assert limits().startup_allowance(load=1.0) == 10.0
    assert limits().startup_allowance(load=6.5) == 65.0
    slow_start = TimeLimits.from_baseline(OUTCOMES, 30.43, ceiling=60.0, probe=10.0, load=1.0)
    assert round(slow_start.startup_allowance(load=1.0), 2) == 60.0  # 3 x the 20 s it took


def test_a_verdict_run_gives_only_the_hung_tests_the_probe():
    assert limits().verdict_limits() == {"tests/test_a.py::test_hangs": 10.0}


def test_the_hang_probe_grows_with_load_up_to_a_cap_and_never_past_the_users_limit():
    assert hang_probe(60.0, load=1.0) == 10.0
    assert hang_probe(60.0, load=2.0) == 20.0
    assert hang_probe(60.0, load=6.5) == 20.0
    assert hang_probe(5.0, load=1.0) == 5.0
