"""The order in which a round validates its plausible candidates, beyond the strategy's own.

    order_plausible(state, plausible, accepted) -> (plausible reordered, Preference per candidate)

Every plausible candidate makes the failing tests pass on screening; they differ in what else they
do. Within each strategy's candidates (the strategy's order breaks ties):

1. A candidate without overfit risks (agent/repair/overfit.py) comes before one with them: the
   behaviour measure below would favour a patch that special-cases the tested input, since it
   changes nothing else.
2. Where every failing test raised in the project's code, a candidate that changes only what
   raised comes before one that also changes values the code returned (both on generated inputs):
   the crash is the bug the tests show, and the values the code already returned are the
   behaviour they leave standing. A guard at the crash site that skips the missing e-mail
   (`if contact.email is None: continue`) comes before iterating over `contacts[:-1]`, which
   passes the same tests by dropping the last contact of every list.
3. A candidate that changes the computation comes before one that only bypasses the failing path
   (agent/repair/bypass.py): a new early return, continue or guard skips the code a failing test
   checks, which hides the bug as often as it fixes it.
4. A candidate whose edit says what the code's own documentation says comes before one that does
   not (agent/repair/documented.py: `ROUND_DOWN` -> `ROUND_HALF_UP` in a module documented as
   rounding "half up"): the docstring states the author's intent, where the tests only sample it.
5. The one that changes the least behaviour on generated inputs comes first (DESIGN, "among
   plausible patches prefer ... the one that changes the least behaviour on generated inputs
   outside the failing ones"): the edge-case generator's inputs run on the base and on each
   candidate (agent/probing.py, each version run once per heal), and a candidate is charged one per input
   whose outcome it changes, compared by powers of two (`Preference.scale`). Measured only when
   a strategy has several candidates to order.
6. A candidate that corrects a value where it is assigned comes before one that corrects it where
   a later statement of the same function reads it (agent/repair/origin.py): clamping
   `self.level = min(self.level + steps, self.ceiling)` keeps the object within its bound for
   every reader, clamping `return min(self.level, self.ceiling)` only for this one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from selfheal.agent.events import Event
from selfheal.agent.newtests.edgecases.runner import EXAMPLE, OPAQUE, VALUE
from selfheal.agent.repair.bypass import bypassed_functions, changed_functions
from selfheal.agent.repair.documented import documented
from selfheal.agent.repair.edits import Candidate, apply_edits
from selfheal.agent.repair.origin import reads_what_is_assigned
from selfheal.agent.repair.overfit import overfit_risks
from selfheal.agent.repair.strategy import Screening
from selfheal.agent.state import HealState

MAX_PROBED = 4  # candidates per strategy whose behaviour is measured


@dataclass(frozen=True)
class Preference:
    overfit: bool = False  # the overfit review sees risks in it
    bypass: tuple[str, ...] = ()  # the functions the candidate only bypasses (empty: none)
    behaviour: int | None = None  # generated inputs whose outcome it changes; None: not measured
    documented: bool = False  # its edit puts in words the surrounding documentation uses
    # every failing test raised in the project and the candidate, measured, changed no value the
    # code returned on generated inputs: it changes only what crashed
    only_what_raised: bool = False
    downstream: bool = False  # another plausible candidate corrects the value it reads where it is set

    @property
    def key(self) -> tuple[bool, bool, bool, bool, float, bool]:
        return (
            self.overfit, not self.only_what_raised, bool(self.bypass), not self.documented, self.scale,
            self.downstream,
        )  # fmt: skip

    @property
    def scale(self) -> float:
        """The behaviour changed, by powers of two: 40 inputs against 3 is a difference; 98 against
        100 is not (the fix of a wrong constant changes every output, and so does a wrong fix that
        happens to agree on one input), and the strategy's own order decides between them."""
        return math.inf if self.behaviour is None else float(int(math.log2(self.behaviour + 1)))


def order_plausible(
    state: HealState, plausible: Sequence[Screening], accepted: dict[str, str], tests: Mapping[str, str]
) -> tuple[list[Screening], dict[int, Preference]]:
    """`plausible` with each strategy's candidates reordered; preferences keyed by id(screening).
    `tests`: each failing test's id -> its file's text, for the overfit review."""
    texts = {id(s): candidate_changes(state, s.candidate, accepted) for s in plausible}
    bases = {key: _base(state, patched) for key, patched in texts.items()}
    overfit = {
        key: bool(overfit_risks(bases[key], patched, tests, state.sources)) for key, patched in texts.items()
    }
    localization = state.result.localization
    crashed = localization.traceback_lines() if localization is not None else None
    bypass = {key: bypassed_functions(bases[key], patched, crashed) for key, patched in texts.items()}
    said = {
        id(s): documented(candidate_sources(state, s.candidate, accepted), s.candidate.edits)
        for s in plausible
    }
    crashed = _all_raised(state, tests)
    strategies = list(dict.fromkeys(s.candidate.strategy for s in plausible))
    preferences: dict[int, Preference] = {}
    ordered: list[Screening] = []
    for strategy in strategies:
        group = [s for s in plausible if s.candidate.strategy == strategy]
        measured = _behaviour(state, group[:MAX_PROBED], texts) if len(group) > 1 else {}
        for screening in group:
            key = id(screening)
            changed = measured.get(key)
            preferences[key] = Preference(
                overfit[key], bypass[key], None if changed is None else changed.total, said[key],
                only_what_raised=crashed and changed is not None and changed.returned == 0,
                downstream=_downstream(state, screening, group),
            )  # fmt: skip
        ordered += sorted(group, key=lambda s: (preferences[id(s)].key, group.index(s)))
    if len(plausible) > 1:
        now = time.time()
        state.events.emit(Event("prefer", now, now, {
            "order": [
                {"candidate": s.candidate.description, "strategy": s.candidate.strategy,
                 "overfit_risk": preferences[id(s)].overfit, "bypass": bool(preferences[id(s)].bypass),
                 "behaviour_changed": preferences[id(s)].behaviour,
                 "only_what_raised": preferences[id(s)].only_what_raised,
                 "downstream": preferences[id(s)].downstream,
                 "documented": preferences[id(s)].documented}
                for s in ordered
            ],
        }))  # fmt: skip
    return ordered, preferences


def candidate_changes(state: HealState, candidate: Candidate, accepted: dict[str, str]) -> dict[str, str]:
    """The files the candidate changes on top of the accepted fixes, path -> patched text (files
    that end as they were at the base left out): what the verdict would judge."""
    changes = {**accepted, **apply_edits(candidate_sources(state, candidate, accepted), candidate.edits)}
    return {p: t for p, t in changes.items() if t != state.base_text(p)}


def candidate_sources(state: HealState, candidate: Candidate, accepted: dict[str, str]) -> dict[str, str]:
    """The texts the candidate's edits apply to: the base, with the round's accepted fixes."""
    return {**state.base_texts_of(candidate), **accepted}


def _base(state: HealState, patched: dict[str, str]) -> dict[str, str]:
    return {path: state.base_text(path) for path in patched}


@dataclass(frozen=True)
class Changed:
    """Generated inputs whose outcome a candidate changes: in all, and of those where the base
    returned (a value, an object, a docstring example's result) rather than raised or hung."""

    total: int = 0
    returned: int = 0

    def __add__(self, other: Changed) -> Changed:
        return Changed(self.total + other.total, self.returned + other.returned)


RETURNED = frozenset({VALUE, OPAQUE, EXAMPLE})


def _all_raised(state: HealState, tests: Mapping[str, str]) -> bool:
    """Whether every failing test raised in the project's own code (a crash, not a wrong value)."""
    localization = state.result.localization
    crashes = localization.crashes if localization is not None else ()
    raised = {crash.test for crash in crashes if crash.raised_here}
    return bool(tests) and all(test in raised for test in tests)


def _downstream(state: HealState, screening: Screening, group: Sequence[Screening]) -> bool:
    """Another candidate of the group corrects, where it is assigned, a value this one's line reads."""
    mine = screening.candidate
    text = state.base_text(mine.file)
    return any(
        other.candidate.file == mine.file
        and other.candidate.line != mine.line
        and reads_what_is_assigned(text, assigned_at=other.candidate.line, read_at=mine.line)
        for other in group
    )


def _behaviour(
    state: HealState, group: list[Screening], texts: dict[int, dict[str, str]]
) -> dict[int, Changed]:
    """Per candidate, the generated inputs whose outcome it changes, summed over the functions it
    changes; a candidate one of whose versions could not be run is left out."""
    by_function: dict[tuple[str, str], list[Screening]] = {}
    for screening in group:
        patched = texts[id(screening)]
        for path, function in changed_functions(_base(state, patched), patched):
            by_function.setdefault((path, function), []).append(screening)
    totals: dict[int, Changed] = {}
    unknown: set[int] = set()
    for (path, function), screenings in by_function.items():
        base = state.probes.run(path, function, {})
        if base is None:
            continue  # not a function the probes can call (a nested one, a coroutine): say nothing
        for screening in screenings:
            version = state.probes.run(path, function, texts[id(screening)])
            if version is None:
                unknown.add(id(screening))
                continue
            differs = [
                outcome
                for probe, outcome in base.outcomes.items()
                if outcome.key is not None and version.outcomes[probe].key != outcome.key
            ]
            changed = Changed(len(differs), sum(1 for outcome in differs if outcome.kind in RETURNED))
            totals[id(screening)] = totals.get(id(screening), Changed()) + changed
    return {key: value for key, value in totals.items() if key not in unknown}
