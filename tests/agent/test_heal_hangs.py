"""Heals of bugs that make tests hang, in the real local sandbox: the baseline stops the hanging
tests and names them, the repair screens candidates under per-test limits, and a hang that
nothing inside the test process can stop still ends at the heal's own deadline, with a result."""

from __future__ import annotations

import sys

import pytest

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace, describe_finished
from selfheal.agent.loop import heal
from selfheal.sandbox import LocalSandbox

HALVINGS = {
    "pkg/__init__.py": "",
    "pkg/count.py": '''
        def halvings(n):
            """How many times n can be halved (integer division) before it reaches 1 (0 for 0)."""
            steps = 0
            while n != 1:
                n = n // 2
                steps += 1
            return steps
        ''',
    "tests/test_count.py": """
        from pkg.count import halvings


        def test_power_of_two():
            assert halvings(8) == 3


        def test_one():
            assert halvings(1) == 0


        def test_zero_needs_no_halving():
            assert halvings(0) == 0
        """,
}

# The test takes SIGALRM for itself, so no per-test limit can stop it: only the heal's deadline.
DEFIANT = {
    "spin/__init__.py": "",
    "spin/wait.py": """
        def settle(ready):
            while not ready():
                pass
            return True
        """,
    "tests/test_wait.py": """
        import signal

        from spin.wait import settle


        def test_settles_at_once():
            assert settle(lambda: True)


        def test_settles_eventually():
            signal.signal(signal.SIGALRM, lambda *args: None)
            assert settle(lambda: False)
        """,
}


def test_a_hanging_test_is_named_at_baseline_and_the_loop_healed(make_repo):
    repo = make_repo(HALVINGS)
    trace = Trace()
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace)

    hung = "tests/test_count.py::test_zero_needs_no_halving"
    baseline = next(e for e in trace.events if e.node == "baseline")
    assert baseline.data["hung"] == [hung]
    assert baseline.data["test_limit_s"] < 60  # the hang probe, not the user's per-test limit (60 s)
    assert "per-test timeout" in result.baseline.outcomes[hung].message
    assert any(note.startswith("1 test hung at baseline") and hung in note for note in result.notes)
    # and by name on the console, not only in report.json
    took, limit = baseline.end - baseline.start, baseline.data["test_limit_s"]
    assert describe_finished(baseline) == (
        f"baseline: 1 failing, 2 passing ({took:.1f}s); 1 test hung and was stopped after {limit:g}s: {hung}"
    )
    assert result.status == "healed", result.error
    assert result.verdict is not None and result.verdict.healed == (hung,)


def test_a_hang_no_test_limit_can_stop_ends_at_the_heals_deadline_with_a_result(make_repo):
    repo = make_repo(DEFIANT)
    budget_s = 30
    result = heal(
        build_config(repo, {"python": sys.executable, "max_minutes": budget_s / 60}), LocalSandbox(), Trace()
    )
    assert result.status == "not_healed"
    assert result.error.startswith("the heal's budget of 0.5 minutes ran out during a test run")
    assert result.metrics.wall_s < budget_s


# Every failing test hangs: nine cases of one function that loops forever (the fix is one operator)
STEPS = {
    "steps/__init__.py": '''
        def steps_to_zero(n):
            """How many decrements take n down to zero."""
            steps = 0
            while n > 0:
                n = n + 1
                steps += 1
            return steps
        ''',
    "tests/test_steps.py": """
        import pytest

        from steps import steps_to_zero


        @pytest.mark.parametrize("n", range(1, 10))
        def test_steps(n):
            assert steps_to_zero(n) == n


        def test_zero():
            assert steps_to_zero(0) == 0
        """,
}


def _stopped_at(message: str) -> float:
    return float(message.split("longer than ", 1)[1].split("s ", 1)[0])


def test_when_every_failing_test_hangs_one_probe_is_waited_out_and_a_loop_stops_at_its_first_hang(make_repo):
    repo = make_repo(STEPS)
    trace = Trace()
    result = heal(build_config(repo, {"python": sys.executable, "max_candidates": 60}), LocalSandbox(), trace)

    cases = [f"tests/test_steps.py::test_steps[{n}]" for n in range(1, 10)]
    baseline = next(e for e in trace.events if e.node == "baseline")
    assert baseline.data["hung"] == sorted(cases)
    stopped_at = [_stopped_at(result.baseline.outcomes[case].message) for case in cases]
    # the first case waits out the hang probe; its siblings, which loop for the same reason, a
    # second or two (the sibling probe grows with the machine's load, as the probe does)
    assert stopped_at[0] == pytest.approx(baseline.data["test_limit_s"], abs=0.05)
    assert max(stopped_at[1:]) <= stopped_at[0] / 5
    # the screening worker agrees with the real run on the hung cases: no fresh process per test
    worker = next(e for e in trace.events if e.node == "screening_worker")
    assert (worker.data["screener"], worker.data.get("disagreements")) == ("fork-worker", None)
    # a candidate that leaves the loop runs one case into its limit, and its siblings not at all
    looping = [e for e in trace.events if e.node == "screen" and e.data.get("stopped_count") == 9]
    assert looping and not any(e.data["plausible"] for e in looping)
    assert result.status == "healed", result.error
    assert result.verdict is not None and set(result.verdict.healed) == set(cases)
