"""The seam every repair strategy plugs into, and the values it trades in.

A strategy proposes candidates for a `RepairContext` and screens them through the function it is
given; it returns the plausible ones, best first, and the best partial fix. It never judges its
own candidates: the heal loop validates them with the verdict. The embedded search engine is one
strategy; a model-driven generator plugs in behind the same seam.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from selfheal.agent.localize.spectrum import Localization
from selfheal.agent.repair.edits import Candidate
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.recalled import RecalledOrder
from selfheal.agent.run.testrun import CoverageMap


@dataclass(frozen=True)
class RepairContext:
    sources: dict[str, str]  # project source files as they stand in this round
    localization: Localization
    targets: tuple[str, ...]  # failing tests to make pass
    passing: tuple[str, ...]
    coverage: CoverageMap | None
    durations: dict[str, float]
    hints: Hints
    seed: int
    baseline_messages: dict[str, str] = field(default_factory=dict)  # as screening reports them
    target_tests: dict[str, str] = field(default_factory=dict)  # failing test id -> its file's text
    recalled: RecalledOrder = field(default_factory=RecalledOrder)  # from earlier heals' memory


@dataclass(frozen=True)
class Screening:
    """What screening said about one candidate."""

    candidate: Candidate
    fixed: frozenset[str]
    still_failing: frozenset[str]
    broken: frozenset[str]
    messages: dict[str, str] = field(default_factory=dict, compare=False)
    error: str | None = None
    tests: tuple[str, ...] = ()  # what was screened: the targets and the covering passing tests

    @property
    def plausible(self) -> bool:
        return self.error is None and not self.still_failing and not self.broken and bool(self.fixed)

    @property
    def improving(self) -> bool:
        return self.error is None and bool(self.fixed) and not self.broken


ScreenFn = Callable[[Candidate], Screening]


class Budget:
    """Candidates and wall time one heal may spend; shared by every strategy."""

    def __init__(self, max_candidates: int, max_seconds: float) -> None:
        self.max_candidates = max_candidates
        self.deadline = time.monotonic() + max_seconds
        self.spent = 0

    def take(self) -> bool:
        if self.exhausted:
            return False
        self.spent += 1
        return True

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.max_candidates or time.monotonic() >= self.deadline

    @property
    def reason(self) -> str:
        if self.spent >= self.max_candidates:
            return f"candidate budget of {self.max_candidates} spent"
        if time.monotonic() >= self.deadline:
            return "time budget spent"
        return ""


@dataclass
class RepairOutcome:
    plausible: list[Screening] = field(default_factory=list)
    partial: Screening | None = None
    tried: int = 0
    families_tried: dict[str, int] = field(default_factory=dict)
    ruled_out: list[Screening] = field(default_factory=list)  # the most promising failures
    stopped_because: str = ""
    widened: bool = False  # the search went past its first lines to weakly suspicious ones


class RepairStrategy(Protocol):
    name: str

    def repair(self, context: RepairContext, screen: ScreenFn, budget: Budget) -> RepairOutcome: ...
