from __future__ import annotations

import io

from selfheal.agent.events import Event
from selfheal.progress import ProgressDisplay

EVENTS = [
    Event("sandbox", 0.0, None, {}),
    Event("sandbox", 0.0, 0.0, {"isolation": "container img: no network; more"}),
    Event("baseline", 0.0, None, {}),
    Event("baseline", 0.0, 2.0, {"status": "ok", "failed": 2, "passed": 11}),
    Event("flake_check", 2.0, 3.0, {"flaky": []}),
    Event("localize", 3.0, 3.0, {"lines": 7, "top": ["pkg/m.py:33"]}),
    Event("screening_worker", 3.0, 3.5, {"screener": "fork-worker", "tests": 8}),
    Event("repair", 3.5, None, {"round": 1}),
    Event("screen", 3.6, 3.6, {"plausible": False}),
    Event("screen", 3.7, 3.7, {"plausible": True}),
    Event("repair", 3.5, 5.5, {"round": 1, "tried": 2, "plausible": 1}),
    Event("validate", 5.5, 7.0, {"candidate": "pkg/m.py:33: `<` -> `<=`", "status": "healed"}),
]


def test_plain_lines_when_not_a_terminal():
    stream = io.StringIO()
    with ProgressDisplay(stream, live=False) as display:
        for event in EVENTS:
            display.emit(event)
    assert stream.getvalue().splitlines() == [
        "[selfheal] sandbox: container img: no network (0.0s)",
        "[selfheal] baseline: 2 failing, 11 passing (2.0s)",
        "[selfheal] flake check: 0 flaky (1.0s)",
        "[selfheal] localized: 7 suspicious lines, most suspicious pkg/m.py:33 (0.0s)",
        "[selfheal] screening worker ready: 8 tests collected once (0.5s)",
        "[selfheal] round 1: 2 candidates screened, 1 plausible (2.0s)",
        "[selfheal] verdict for pkg/m.py:33: `<` -> `<=`: healed (1.5s)",
    ]


def test_live_display_prints_finished_stages_and_counts_candidates():
    stream = io.StringIO()
    with ProgressDisplay(stream, live=True) as display:
        for event in EVENTS[:10]:
            display.emit(event)
        assert display._screened == 2 and display._plausible == 1
        for event in EVENTS[10:]:
            display.emit(event)
    text = stream.getvalue()
    assert "✓ baseline: 2 failing, 11 passing (2.0s)" in text
    assert "✓ verdict for pkg/m.py:33: `<` -> `<=`: healed (1.5s)" in text


def plain_lines(events: list[Event]) -> list[str]:
    stream = io.StringIO()
    with ProgressDisplay(stream, live=False) as display:
        for event in events:
            display.emit(event)
    return stream.getvalue().splitlines()


def test_the_sandbox_is_said_plainly_and_a_hang_at_baseline_by_name():
    hung = [f"tests/test_count.py::test_case_{i}" for i in range(5)]
    assert plain_lines([
        Event("sandbox", 0.0, 0.2, {
            "isolation": "uid 57293, not selfheal's user; capabilities: none; namespaces: mount, pid",
            "plain": "local, namespaces, no network",
        }),
        Event("baseline", 0.0, 4.0, {
            "status": "ok", "failed": 1, "passed": 2, "hung": hung[:1], "test_limit_s": 3.2,
        }),
        Event("baseline", 0.0, 9.0, {
            "status": "ok", "failed": 5, "passed": 0, "hung": hung, "test_limit_s": 3,
        }),
        Event("baseline", 0.0, 2.0, {"status": "collection_error", "failed": 0, "passed": 0}),
    ]) == [
        "[selfheal] sandbox: local, namespaces, no network (0.2s)",
        "[selfheal] baseline: 1 failing, 2 passing (4.0s); 1 test hung and was stopped after 3.2s: "
        "tests/test_count.py::test_case_0",
        "[selfheal] baseline: 5 failing, 0 passing (9.0s); 5 tests hung and were stopped after 3s: "
        "tests/test_count.py::test_case_0, tests/test_count.py::test_case_1, "
        "tests/test_count.py::test_case_2 and 2 more",
        # the heal's error says why, once
        "[selfheal] baseline: the tests did not run (2.0s)",
    ]  # fmt: skip


def test_each_round_counts_its_screenings_and_all_of_them_singular_or_plural():
    assert plain_lines([
        Event("localize", 0.0, 0.0, {"lines": 1, "top": ["pkg/m.py:3"]}),
        Event("screening_worker", 0.0, 1.0, {"screener": "fork-worker", "tests": 1}),
        Event("repair", 1.0, 3.0, {"round": 1, "tried": 34, "screened": 34, "in_all": 34, "plausible": 0}),
        Event("repair", 3.0, 6.0, {"round": 2, "tried": 65, "screened": 65, "in_all": 99, "plausible": 1}),
        # the heal's budget ran out inside the round: what it screened is still counted
        Event("repair", 6.0, 7.0, {"round": 3, "screened": 1, "in_all": 100}),
        Event("new_tests", 7.0, 8.0, {"fail_to_pass": 1, "guard": 1, "discarded": 0}),
        Event("compare_plausible", 8.0, 8.0, {"plausible": 2, "measured": True, "probes": 1}),
        Event("overfit_review", 8.0, 8.0, {"risks": 1, "kinds": ["constant_return"]}),
    ]) == [
        "[selfheal] localized: 1 suspicious line, most suspicious pkg/m.py:3 (0.0s)",
        "[selfheal] screening worker ready: 1 test collected once (1.0s)",
        "[selfheal] round 1: 34 candidates screened, 0 plausible (2.0s)",
        "[selfheal] round 2: 65 candidates screened (99 in all), 1 plausible (3.0s)",
        "[selfheal] round 3: 1 candidate screened (100 in all), 0 plausible (1.0s)",
        "[selfheal] new tests: 1 fail→pass, 1 guard, 0 discarded (1.0s)",
        "[selfheal] compared fixes: 2 plausible patches agree on 1 input (0.0s)",
        "[selfheal] overfit review: 1 risk: constant return",
    ]  # fmt: skip


def test_the_live_counter_counts_the_round_and_every_round_as_the_lines_do():
    from rich.console import Console

    display = ProgressDisplay(io.StringIO(), live=False)
    display.emit(Event("repair", 0.0, None, {"round": 1}))
    for n in range(1, 35):
        display.emit(Event("screen", 0.1, 0.1, {"n": n, "plausible": False}))
    display.emit(Event("repair", 0.0, 3.0, {"round": 1, "tried": 34, "screened": 34, "in_all": 34}))
    display.emit(Event("repair", 3.0, None, {"round": 2}))
    display.emit(Event("screen", 3.1, 3.1, {"n": 35, "plausible": True}))
    shown = io.StringIO()
    Console(file=shown, width=200).print(display._render())
    assert "1 candidate screened (35 in all) · 1 plausible · " in shown.getvalue()
