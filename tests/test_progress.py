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
