"""The heal's own deadline: every heal ends, and writes its report, inside its budget.

The budget (--max-minutes) covers the whole heal, not only the search: the baseline, screening,
validations and new tests all run under it. A run is given at most the time left; when none is
left the heal stops with `HealStopped`, keeping a margin to close the sandbox and write its
outputs. The same stop comes early when `stop` is set: a bot server that is shutting down asks
the heals of its worker threads to end this way, since only the main thread receives a signal.
"""

from __future__ import annotations

import threading
import time

from selfheal.agent.exceptions import HealStopped

MIN_RUN_S = 1.0  # less than this left for a run: stop rather than start it


def output_margin(budget_s: float) -> float:
    """Time kept back from the budget for closing the sandbox and writing the outputs."""
    return min(30.0, max(5.0, 0.1 * budget_s))


class HealClock:
    def __init__(self, budget_s: float, stop: threading.Event | None = None) -> None:
        self.started = time.monotonic()
        self.budget_s = budget_s
        self.ends = self.started + budget_s - output_margin(budget_s)
        self.stop = stop

    def left(self) -> float:
        return self.ends - time.monotonic()

    def check(self, during: str) -> None:
        if self.stop is not None and self.stop.is_set():
            raise HealStopped(f"the heal was asked to stop during {during}")
        if self.left() < MIN_RUN_S:
            raise HealStopped(f"the heal's budget of {minutes(self.budget_s)} ran out during {during}")

    def bound(self, timeout: float, during: str) -> float:
        """`timeout`, or the time left when that is shorter; stops the heal when none is left."""
        self.check(during)
        return min(timeout, self.left())


def minutes(seconds: float) -> str:
    """A budget as --max-minutes gave it: "1 minute", "0.5 minutes", "10 minutes"."""
    value = seconds / 60
    return f"{value:g} minute" + ("" if value == 1 else "s")
