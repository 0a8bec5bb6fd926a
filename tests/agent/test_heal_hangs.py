"""Heals of bugs that make tests hang, in the real local sandbox: the baseline stops the hanging
tests and names them, the repair screens candidates under per-test limits, and a hang that
nothing inside the test process can stop still ends at the heal's own deadline, with a result."""

from __future__ import annotations

import sys

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
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
    assert any(note.startswith("1 test(s) hung at baseline") and hung in note for note in result.notes)
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
