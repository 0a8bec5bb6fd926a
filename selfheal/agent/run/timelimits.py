"""How long a test may run, learned from the baseline run.

A bug that makes a test hang (a loop that never ends, a wait nothing wakes) would otherwise cost
the whole per-test limit at every run that reaches it. So:

- the baseline runs with a short *hang probe* per test: a test still running after it is stopped,
  counted as failing, and named as hanging; once a case of a test function hung, its other cases
  get the *sibling probe* (a second, or five times the longest of its cases that finished): nine
  parametrized cases of one looping function cost one probe and eight seconds, not nine probes;
- screening gives each test a limit of a small multiple of its own baseline duration, never below
  a floor, so a candidate that keeps (or makes) a test hang costs about a second;
- verdict runs keep the user's per-test limit for tests that finished at baseline (a verdict must
  not reject a correct patch because the machine got slower) and the probe for tests that hung.

Floors scale with the machine's load: on two cores shared with a dozen busy processes, pytest's
start-up alone takes seconds, and a limit tuned on an idle machine would turn a correct candidate
into a "timeout".
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from selfheal.agent.run.junit import TestOutcome

HANG_PROBE_S = 10.0  # a test still running after this long at baseline (idle machine) hangs
SIBLING_PROBE_S = 1.0  # ... and a later case of a function one of whose cases hung, after this long
PROBE_LOAD_CAP = 2.0
SCREEN_MULTIPLE = 5.0  # a screened test may take this many times its baseline duration ...
SCREEN_FLOOR_S = 0.25  # ... and never less than this (idle machine; the alarm times the call, not set-up)
STARTUP_FLOOR_S = 10.0  # pytest's start-up and collection in a fresh process (idle machine)
STARTUP_MULTIPLE = 3.0  # ... or this many times what it took at baseline, whichever is longer
TIMEOUT_MARK = "per-test timeout"  # in the message of a test the plugin's alarm stopped


def load_factor() -> float:
    """How many runnable processes compete for each core, at least 1: how much slower than an
    idle machine a run may be right now."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1.0
    return max(1.0, load / max(1, os.cpu_count() or 1))


def hang_probe(test_timeout: float, load: float) -> float:
    """The baseline's per-test limit: the user's, or the probe when that is shorter. The probe
    grows with the load, up to PROBE_LOAD_CAP times: past that a hang would cost more than the
    slow test it guards against."""
    return min(test_timeout, HANG_PROBE_S * min(load, PROBE_LOAD_CAP))


def sibling_probe(load: float) -> float:
    """The limit of a test function's later cases once one of its cases hung (see the module doc)."""
    return SIBLING_PROBE_S * min(load, PROBE_LOAD_CAP)


def screen_floor(load: float) -> float:
    """The least a screened test is given. It covers a test's fixed costs (set-up, a first
    import), which grow with the load, but it is already many times what a quick test takes, so
    it grows with the load's square root, not the load."""
    return SCREEN_FLOOR_S * math.sqrt(load)


def timed_out(outcome: TestOutcome) -> bool:
    return TIMEOUT_MARK in outcome.message


@dataclass(frozen=True)
class TimeLimits:
    durations: Mapping[str, float]  # seconds of each test that finished at baseline
    hung: frozenset[str]  # tests the baseline's hang probe stopped
    ceiling: float  # the user's per-test limit (--test-timeout)
    probe: float  # the baseline's per-test limit
    startup_s: float = 0.0  # the baseline run's time outside its tests: start-up, collection
    baseline_load: float = 1.0
    slowest: float = 0.0  # the slowest finished test's seconds

    @classmethod
    def from_baseline(
        cls,
        outcomes: Mapping[str, TestOutcome],
        run_s: float,
        *,
        ceiling: float,
        probe: float,
        load: float,
    ) -> TimeLimits:
        hung = frozenset(n for n, o in outcomes.items() if timed_out(o))
        durations = {n: o.duration for n, o in outcomes.items() if n not in hung}
        startup = max(0.0, run_s - sum(o.duration for o in outcomes.values()))
        slowest = max(durations.values(), default=0.0)
        return cls(durations, hung, ceiling, probe, startup, load, slowest)

    def screen_limit(self, nodeid: str, load: float) -> float:
        """A screened test's limit: a multiple of its baseline duration, above the floor. A test
        with no duration (it hung, or is new) gets the slowest finished test's."""
        seconds = self.durations.get(nodeid, self.slowest)
        slower = max(1.0, load / self.baseline_load)  # durations were measured under the baseline's load
        return min(self.ceiling, max(screen_floor(load), SCREEN_MULTIPLE * seconds * slower))

    def screen_limits(self, tests: Iterable[str], load: float) -> dict[str, float]:
        return {t: round(self.screen_limit(t, load), 3) for t in tests}

    def startup_allowance(self, load: float) -> float:
        """What a fresh pytest process may take before its first test."""
        return max(
            STARTUP_FLOOR_S * load, STARTUP_MULTIPLE * self.startup_s * max(1.0, load / self.baseline_load)
        )

    def verdict_limits(self) -> dict[str, float]:
        """Per-test limits of a full run: the probe for the tests that hung (a patch that leaves
        one hanging costs the probe, not the user's limit); the others keep the user's."""
        return {t: self.probe for t in sorted(self.hung)}
