"""Heals of bugs that make tests hang, in the real local sandbox: the baseline stops the hanging
tests and names them, the repair screens candidates under per-test limits, and a hang that
nothing inside the test process can stop still ends at the heal's own deadline, with a result."""

from __future__ import annotations

import sys

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.sandbox import LocalSandbox

COUNTDOWN = {
    "steps/__init__.py": "",
    "steps/count.py": """
        def countdown(start, step):
            \"\"\"start, start - step, ... while the value stays positive.\"\"\"
            values = []
            value = start
            while value != 0:
                values.append(value)
                value -= step
            return values
        """,
    "tests/test_count.py": """
        from steps.count import countdown


        def test_exact_steps():
            assert countdown(6, 2) == [6, 4, 2]


        def test_uneven_steps():
            assert countdown(5, 2) == [5, 3, 1]


        def test_step_of_one():
            assert countdown(3, 1) == [3, 2, 1]


        def test_nothing_to_count():
            assert countdown(0, 3) == []
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
    repo = make_repo(COUNTDOWN)
    trace = Trace()
    result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace)

    hung = "tests/test_count.py::test_uneven_steps"
    baseline = next(e for e in trace.events if e.node == "baseline")
    assert baseline.data["hung"] == [hung]
    assert baseline.data["test_limit_s"] < 60  # the hang probe, not the user's per-test limit
    assert "per-test timeout" in result.baseline.outcomes[hung].message
    assert any(note.startswith("1 test(s) hung at baseline") and hung in note for note in result.notes)
    assert result.status == "healed", result.error
    assert "-    while value != 0:" in result.patch
    assert "+    while value > 0:" in result.patch


def test_a_hang_no_test_limit_can_stop_ends_at_the_heals_deadline_with_a_result(make_repo):
    repo = make_repo(DEFIANT)
    budget_s = 30
    result = heal(
        build_config(repo, {"python": sys.executable, "max_minutes": budget_s / 60}), LocalSandbox(), Trace()
    )
    assert result.status == "not_healed"
    assert result.error.startswith("the heal's budget of 0.5 minutes ran out during a test run")
    assert result.metrics.wall_s < budget_s
