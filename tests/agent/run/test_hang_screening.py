"""Screening a candidate that hangs, in the real local sandbox with real pytest: each test gets
its own limit from its baseline duration, so the hang costs about a second, not the user's
per-test limit (60 s here)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from selfheal.agent.run.screen import ForkScreener, SubprocessScreener
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.timelimits import TimeLimits, load_factor
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.sandbox import LocalSandbox

REPO = {
    "queue_tools/__init__.py": "",
    "queue_tools/drain.py": """
        def drain(items, batch):
            taken = []
            while items:
                taken.append(items[:batch])
                items = items[batch:]
            return taken


        def first_index(items, wanted):
            index = 0
            while index < len(items):
                if items[index] == wanted:
                    return index
                index += 1
            return -1
        """,
    "tests/test_drain.py": """
        from queue_tools.drain import drain, first_index


        def test_drain_in_batches():
            assert drain([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


        def test_first_index():
            assert first_index(["a", "b", "c"], "c") == 2


        def test_missing_index():
            assert first_index(["a"], "z") == -1
        """,
}
TESTS = [
    f"tests/test_drain.py::{name}"
    for name in ("test_drain_in_batches", "test_first_index", "test_missing_index")
]
USER_LIMIT = 60.0


@contextmanager
def baseline_screeners(
    make_repo,
) -> Iterator[tuple[TestRunner, ForkScreener, SubprocessScreener, dict[str, str]]]:
    repo = make_repo(REPO)
    workspace = Workspace.create(Origin.inspect(repo))
    session = LocalSandbox().start(workspace.root)
    runner = TestRunner(
        session,
        TestCommand.parse("python -m pytest", sys.executable, workspace.root),
        sys.executable,
        timeout=600,
        test_timeout=USER_LIMIT,
    )
    base = {"queue_tools/drain.py": workspace.base_text("queue_tools/drain.py")}
    worker = None
    try:
        baseline, _ = runner.run()
        assert baseline.ran and baseline.failing == [], baseline.message
        load = load_factor()
        runner.limits = TimeLimits.from_baseline(
            baseline.outcomes, baseline.duration_s, ceiling=USER_LIMIT, probe=10.0, load=load
        )
        worker, why = ForkScreener.start(session, runner, TESTS, base, startup_timeout=120)
        assert worker is not None, why
        yield runner, worker, SubprocessScreener(session, runner, base), base
    finally:
        if worker is not None:
            worker.close()
        session.close()
        workspace.cleanup()


def hanging(base: dict[str, str]) -> dict[str, str]:
    """`index += 1` dropped: first_index loops forever on anything but the first item."""
    text = base["queue_tools/drain.py"]
    assert "        index += 1\n" in text
    return {"queue_tools/drain.py": text.replace("        index += 1\n", "        index += 0\n")}


def test_the_fork_worker_stops_a_hanging_candidate_at_each_tests_own_limit(make_repo):
    with baseline_screeners(make_repo) as (runner, worker, _, base):
        assert runner.limits is not None
        limits = runner.limits.screen_limits(TESTS, load_factor())
        assert all(seconds < USER_LIMIT for seconds in limits.values()), limits
        result = worker.screen(hanging(base), TESTS, timeout=600, test_timeout=USER_LIMIT)
        kept = worker.screen({}, TESTS, timeout=600, test_timeout=USER_LIMIT)
    assert result.error is None
    assert result.outcomes == {
        "tests/test_drain.py::test_drain_in_batches": "passed",
        "tests/test_drain.py::test_first_index": "timeout",  # "c" is the third item: never reached
        "tests/test_drain.py::test_missing_index": "timeout",
    }
    # the two hangs cost their own limits (a second each, more under load), not the user's 60 s each
    assert result.duration_s < USER_LIMIT
    assert set(kept.outcomes.values()) == {"passed"}


def test_one_pytest_process_per_candidate_stops_the_hang_the_same_way(make_repo):
    with baseline_screeners(make_repo) as (_, _, plain, base):
        result = plain.screen(hanging(base), TESTS, timeout=600, test_timeout=USER_LIMIT)
    assert result.error is None
    assert result.outcomes["tests/test_drain.py::test_drain_in_batches"] == "passed"
    for test in ("tests/test_drain.py::test_first_index", "tests/test_drain.py::test_missing_index"):
        assert result.outcomes[test] == "failed"
        assert "per-test timeout" in result.messages[test]
    assert result.duration_s < USER_LIMIT
