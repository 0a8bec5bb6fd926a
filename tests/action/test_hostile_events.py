"""The hostile-events corpus through `selfheal action`, run as the runner runs it (a process with the
runner's environment and the event file) against the fake GitHub. Per case: no crash (exit code 0,
no traceback), the right decision, and on GitHub exactly its traces (tests/action/hostile_world.py).
The cases share one fake GitHub and remote (each has its own pull request, comment and marker)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from evaluation.hostile_events.cases import Case, load_cases
from tests.action.conftest import World
from tests.action.hostile_world import ACTION_BOT, action_world, dump, judge, observe, prepare, record

CASES = load_cases()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with action_world(tmp_path_factory.mktemp("hostile-action")) as world:
        yield world


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_event_through_the_action(shared: World, case: Case, request: pytest.FixtureRequest) -> None:
    started = time.monotonic()
    world = shared
    prepared = prepare(case, CASES.index(case), world.fake, world.remote, world.shas, world.tmp)
    run = world.run(prepared.event, prepared.payload)
    crash = ""
    if run.returncode != 0 or "Traceback" in run.stderr or "internal error" in run.stderr:
        crash = f"exit {run.returncode}: {run.stderr[-1500:]}"
    status = run.outputs.get("status", "error")
    seen = observe(prepared, world.fake, world.remote, ACTION_BOT, status, crash, run.summary)
    wrong = judge(case, seen)
    record(request.config, "action", case, seen, wrong, started)
    assert not wrong, f"{wrong}\n{dump(seen)}\nstderr:\n{run.stderr[-3000:]}"
    assert world.token not in run.stdout + run.stderr + run.summary
