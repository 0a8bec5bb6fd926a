"""Where plausible patches disagree: distinct patches that all pass the tests, grouped by behaviour.

    group_by_behaviour(names, outcomes) -> list of groups (lists of names), in the names' order
    distinguishing(groups, outcomes, order) -> probe ids on which the groups' outcomes differ

Several patches can make the failing tests pass and keep every other test passing while computing
different things elsewhere (`page // n` and `(page - 1) * n` agree on page 1 only). Each patch and
the original run on the same generated inputs; patches whose outcomes agree on every input that says
something form one group. One group: the tests determine the fix, as far as the inputs reach.
Several: the tests leave it open, and the pull request shows one input per difference and what
each group returns there (after PATCH-SIM, Xiong et al., ICSE 2018: behaviour similarity on
generated tests to tell overfitting patches).

The values here are what the report, the pull request and the confidence read; the probe runs
that fill them live in agent/alternatives.py.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

Key = Hashable | None  # an input's observable outcome; None: it says nothing (unstable, bad input)


@dataclass(frozen=True)
class BehaviourGroup:
    """Plausible patches that behave alike on every generated input."""

    members: tuple[str, ...]  # the candidates' descriptions, the group's representative first
    patch: str  # the representative's unified diff against the base
    shipped: bool = False  # the shipped patch is this group's representative
    validated: bool = False  # the representative met the verdict's full run (else: screening only)
    decision_test: str = ""  # a ready-to-paste test that passes in this group and fails in the others
    refuted_by: str = ""  # an oracle (a docstring example) it contradicts: not a fix the code allows


@dataclass(frozen=True)
class DistinguishingInput:
    """One input on which the groups differ, and what each gives."""

    function: str  # "path: qualname" of the changed function called
    call: str  # the call as a test writes it: `page_slice(list(range(10)), 2, 3)`
    base: str  # what the code before the patch gives: a repr, `raises ValueError`, `hangs`
    results: tuple[str, ...]  # per group, in the groups' order


@dataclass(frozen=True)
class ModelJudgement:
    """The model's reading of which group the code and its documentation mean (advice, never the
    verdict)."""

    preferred: int | None  # index into the standing groups; None: the model could not tell
    reasons: str
    provider: str = ""


@dataclass(frozen=True)
class Disagreement:
    """What the comparison of the plausible patches found."""

    groups: tuple[BehaviourGroup, ...] = ()
    inputs: tuple[DistinguishingInput, ...] = ()
    probes: int = 0  # generated inputs every version ran on
    plausible: int = 0  # distinct plausible patches compared (the shipped one included)
    measured: bool = False  # False: the changed functions could not be called on generated inputs
    judgement: ModelJudgement | None = None
    notes: tuple[str, ...] = field(default=())  # why fewer patches or inputs were compared

    @property
    def open(self) -> bool:
        """The tests allow more than one fix: groups that no oracle refutes behave differently."""
        return len(self.standing) > 1

    @property
    def standing(self) -> tuple[BehaviourGroup, ...]:
        return tuple(g for g in self.groups if not g.refuted_by)


def group_by_behaviour(names: Sequence[str], outcomes: Mapping[str, Mapping[int, Key]]) -> list[list[str]]:
    """Names whose outcomes agree on every input where all versions said something, grouped; groups
    and members keep the order of `names` (the order of preference, the shipped patch first). A
    name without outcomes is a group of its own: nothing shows it behaves like another."""
    common = _common_probes(names, outcomes)
    groups: dict[tuple, list[str]] = {}
    alone: list[list[str]] = []
    for name in names:
        seen = outcomes.get(name)
        if not seen:
            alone.append([name])
            continue
        signature = tuple(seen[p] for p in common)
        groups.setdefault(signature, []).append(name)
    ordered = sorted([*groups.values(), *alone], key=lambda members: names.index(members[0]))
    return ordered


def distinguishing(
    groups: Sequence[Sequence[str]],
    outcomes: Mapping[str, Mapping[int, Key]],
    preference: Sequence[int] = (),
    limit: int = 3,
) -> list[int]:
    """Probe ids on which the groups' representatives differ, at most `limit`: first as few as tell
    every pair of groups apart (those that tell the most groups apart first, then in the order of
    `preference`: the inputs a reader takes in at a glance), then, in the order of `preference`,
    inputs that show another combination of results."""
    heads = [g[0] for g in groups if g and outcomes.get(g[0])]
    if len(heads) < 2:
        return []
    common = _common_probes(heads, outcomes)
    rank = {p: i for i, p in enumerate(preference)}
    scored = []
    for probe in common:
        distinct = len({outcomes[h][probe] for h in heads})
        if distinct > 1:
            scored.append((-distinct, rank.get(probe, len(rank)), probe))
    chosen: list[int] = []
    separated: set[tuple[str, str]] = set()
    ordered = [probe for _, _, probe in sorted(scored)]
    for probe in ordered:
        pairs = {
            (a, b)
            for i, a in enumerate(heads)
            for b in heads[i + 1 :]
            if outcomes[a][probe] != outcomes[b][probe]
        }
        if pairs - separated or not chosen:
            chosen.append(probe)
            separated |= pairs
        if len(chosen) >= limit:
            return chosen
    # every pair is told apart: more inputs, each showing a combination of results not yet shown
    shown = {tuple(outcomes[h][p] for h in heads) for p in chosen}
    for probe in sorted(ordered, key=lambda p: rank.get(p, len(rank))):
        results = tuple(outcomes[h][probe] for h in heads)
        if len(chosen) >= limit:
            break
        if probe not in chosen and results not in shown:
            chosen.append(probe)
            shown.add(results)
    return chosen


def _common_probes(names: Sequence[str], outcomes: Mapping[str, Mapping[int, Key]]) -> list[int]:
    """Inputs every version with outcomes ran and said something on."""
    known = [outcomes[n] for n in names if outcomes.get(n)]
    if not known:
        return []
    probes = set(known[0])
    for seen in known[1:]:
        probes &= set(seen)
    return sorted(p for p in probes if all(seen[p] is not None for seen in known))
