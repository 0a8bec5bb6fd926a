"""Where plausible patches disagree: the shipped patch and the other plausible ones of its round,
run with the original on generated inputs and grouped by behaviour.

    Comparison(state, rounds).compare(baseline) -> Disagreement      result.disagreement

The patches compared are the round's distinct plausible candidates (at most MAX_PER_LOCATION at
one line, MAX_COMPARED in all), in the order the round preferred them, the shipped one first;
candidates the verdict refused are left out. The inputs are those of each changed function
(agent/probing.py): the failing tests' own calls and their neighbours, the values of the other
tests, annotation edges, the docstring's examples. Patches that agree on every input form a group;
a group whose patch fails a docstring example another group meets is refuted by that oracle.

A group besides the shipped one is a fix the tests allow only if its patch meets the verdict: its
representative gets the verdict's full run when it has not had one (at most MAX_VALIDATED), and
is dropped when it fails. For each standing group the comparison writes the test that would decide
for it: an input on which it differs from every other group, asserting its result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from selfheal.agent.events import stage
from selfheal.agent.newtests.cases import TestFile
from selfheal.agent.newtests.edgecases.cases import Names, decision_case
from selfheal.agent.newtests.edgecases.generate import ProbePlan
from selfheal.agent.newtests.edgecases.runner import CRASHED, EXAMPLE, OPAQUE, RAISES, TIMEOUT, VALUE, Outcome
from selfheal.agent.preference import candidate_changes
from selfheal.agent.repair.bypass import changed_functions
from selfheal.agent.repair.disagreement import (
    BehaviourGroup,
    Disagreement,
    DistinguishingInput,
    distinguishing,
    group_by_behaviour,
)
from selfheal.agent.repair.edits import Candidate
from selfheal.agent.run.testrun import TestReport
from selfheal.agent.state import HealState, restore, snapshot
from selfheal.sandbox.exceptions import WorkspaceTrap

MAX_PER_LOCATION = 3  # plausible patches compared at one line (the shipped one included)
MAX_COMPARED = 6  # other plausible patches compared
MAX_FUNCTIONS = 3  # changed functions whose inputs are run
MAX_VALIDATED = 2  # other groups' patches given the verdict's full run
MAX_INPUTS_SHOWN = 3
VALIDATE_IF_SUITE_UNDER_S = 30.0  # a full run per group only where the suite's own run is short
PROBE_KEY = 100_000  # flattens (function, probe id) into one id


@dataclass(frozen=True)
class Version:
    """The shipped patch or another plausible one: what it changes over the base."""

    name: str
    candidate: Candidate
    changes: dict[str, str]
    validated: bool


class Comparison:
    def __init__(self, state: HealState, rounds) -> None:
        self.state = state
        self.rounds = rounds  # agent/rounds.RepairRounds: the round's plausible patches and the verdict
        self.changes: dict[str, dict[str, str]] = {}  # each compared patch's description -> its changes
        self.candidates: dict[str, Candidate] = {}  # ... -> the candidate itself

    def compare(self, baseline: TestReport) -> Disagreement:
        """The plausible patches of the winning round, grouped by behaviour; also set as
        `result.disagreement`."""
        state = self.state
        with stage(state.events, "compare_plausible") as info:
            disagreement = self._compare(baseline)
            state.result.disagreement = disagreement
            info.update(
                plausible=disagreement.plausible, groups=len(disagreement.groups),
                standing=len(disagreement.standing), open=disagreement.open, probes=disagreement.probes,
                measured=disagreement.measured, notes=list(disagreement.notes),
                inputs=[
                    {"call": i.call, "base": i.base, "results": list(i.results)} for i in disagreement.inputs
                ],
            )  # fmt: skip
        return disagreement

    # -- the patches -------------------------------------------------------------------------
    def versions(self) -> list[Version]:
        """The shipped patch first, then the round's other plausible patches the verdict did not
        refuse, in the round's order of preference, bounded per line and in all."""
        state, result, rounds = self.state, self.state.result, self.rounds
        if not result.fixes:
            return []
        shipped = result.fixes[-1]
        refused = {r.candidate.key for r in result.rejections}
        held = {c.key for c in rounds.held}
        versions = [Version(shipped.description, shipped, dict(result.changes), True)]
        seen = {_content(result.changes)}
        at_line = {(shipped.file, shipped.line): 1}
        for candidate in rounds.plausible_order:
            if len(versions) > MAX_COMPARED or candidate.key == shipped.key or candidate.key in refused:
                continue
            where = (candidate.file, candidate.line)
            if at_line.get(where, 0) >= MAX_PER_LOCATION:
                continue
            try:
                changes = candidate_changes(state, candidate, rounds.accepted)
            except ValueError:
                continue
            content = _content(changes)
            if not changes or content in seen:
                continue
            seen.add(content)
            at_line[where] = at_line.get(where, 0) + 1
            name = _unique(candidate.description, {v.name for v in versions})
            versions.append(Version(name, candidate, changes, candidate.key in held))
        return versions

    # -- the comparison ------------------------------------------------------------------------
    def _compare(self, baseline: TestReport) -> Disagreement:
        state = self.state
        versions = self.versions()
        self.changes = {v.name: v.changes for v in versions}
        self.candidates = {v.name: v.candidate for v in versions}
        if len(versions) < 2:
            return Disagreement(
                groups=(_group(versions[:1], shipped=True),) if versions else (),
                plausible=len(versions),
                notes=("no other plausible patch was found to compare with",) if versions else (),
            )
        base_texts = {p: state.base_text(p) for v in versions for p in v.changes}
        functions = list(dict.fromkeys(f for v in versions for f in changed_functions(base_texts, v.changes)))
        notes: list[str] = []
        if len(functions) > MAX_FUNCTIONS:
            notes.append(f"{len(functions)} functions changed; the inputs of the first {MAX_FUNCTIONS} ran")
            functions = functions[:MAX_FUNCTIONS]
        outcomes: dict[str, dict[int, object]] = {v.name: {} for v in versions}
        shown: dict[int, tuple[str, str, Outcome]] = {}  # flat probe id -> (function, call, base outcome)
        plans: dict[int, tuple[ProbePlan, int]] = {}  # function index -> (plan, offset)
        seen: dict[str, dict[int, Outcome]] = {v.name: {} for v in versions}
        for index, (path, function) in enumerate(functions):
            base = state.probes.run(path, function, {})
            planned = state.probes.plan(path, function)
            if base is None or planned is None:
                why = state.probes.why(path, function)
                notes.append(
                    f"{path}: {function} could not be called on generated inputs"
                    + (f" ({why})" if why else "")
                )
                continue
            offset = index * PROBE_KEY
            plans[index] = (planned, offset)
            calls = {p.id: p.text for p in planned.probes}
            calls.update({i: e.expr for i, e in planned.examples.items()})
            for probe_id, outcome in base.outcomes.items():
                shown[offset + probe_id] = (f"{path}: {function}", calls.get(probe_id, "?"), outcome)
            for version in versions:
                run = state.probes.run(path, function, version.changes)
                if run is None:
                    notes.append(f"{version.name}: {function} could not be imported on this patch")
                    continue
                for probe_id, outcome in run.outcomes.items():
                    outcomes[version.name][offset + probe_id] = outcome.key
                    seen[version.name][offset + probe_id] = outcome
        if not plans:
            return Disagreement(
                groups=tuple(_group([v], shipped=i == 0) for i, v in enumerate(versions[:1])),
                plausible=len(versions), notes=tuple(notes),
            )  # fmt: skip
        names = [v.name for v in versions]
        grouped = group_by_behaviour(names, outcomes)
        by_name = {v.name: v for v in versions}
        refuted = _refuted(grouped, seen, shown)
        groups = [[by_name[n] for n in members] for members in grouped]
        groups, dropped = self._validated(groups, refuted, baseline)
        notes += dropped
        standing = [g for g in groups if not refuted.get(g[0].name)]
        preference = _preference(plans, [seen[g[0].name] for g in standing])
        heads = [[g[0].name] for g in standing]
        chosen = distinguishing(heads, outcomes, preference, limit=MAX_INPUTS_SHOWN)
        inputs = tuple(
            DistinguishingInput(
                function=shown[p][0],
                call=shown[p][1],
                base=display(shown[p][2]),
                results=tuple(display(seen[g[0].name][p]) for g in standing),
            )
            for p in chosen
        )
        decisions = _decision_tests(standing, outcomes, seen, plans, preference)
        made = tuple(
            _group(
                members,
                shipped=members[0] is versions[0],
                refuted_by=refuted.get(members[0].name, ""),
                decision_test=decisions.get(members[0].name, ""),
                patch=self.state.workspace.diff(members[0].changes, in_repo=True),
            )
            for members in groups
        )
        common = {p for p in shown if all(p in seen[v.name] for v in versions)}
        return Disagreement(
            groups=made, inputs=inputs, probes=len(common), plausible=len(versions), measured=True,
            notes=tuple(notes),
        )  # fmt: skip

    def _validated(
        self, groups: list[list[Version]], refuted: Mapping[str, str], baseline: TestReport
    ) -> tuple[list[list[Version]], list[str]]:
        """The groups whose patch meets the verdict: each group is led by a member that has had the
        verdict's full run, or gets one (bounded); a group none of whose members holds is dropped.
        Refuted groups are kept as they are, to be shown as refuted."""
        result = self.state.result
        kept: list[list[Version]] = []
        notes: list[str] = []
        budget = MAX_VALIDATED if result.metrics.baseline_s <= VALIDATE_IF_SUITE_UNDER_S else 0
        for members in groups:
            if members[0] is groups[0][0] or refuted.get(members[0].name):
                kept.append(members)
                continue
            held = [m for m in members if m.validated]
            if held:
                kept.append([held[0], *[m for m in members if m is not held[0]]])
                continue
            if budget <= 0:
                kept.append(members)  # screened only: the report says so
                continue
            budget -= 1
            before = snapshot(result)
            try:
                verdict = self.rounds.validate(members[0].candidate, self.rounds.accepted, baseline)
            except WorkspaceTrap as exc:
                notes.append(f"{members[0].name} could not be put in place to verify it: {exc}")
                continue
            finally:
                restore(result, before)
            if verdict.holds:
                leader = Version(members[0].name, members[0].candidate, members[0].changes, True)
                kept.append([leader, *members[1:]])
            else:
                broken = "; ".join(verdict.violations[:1]) or verdict.status
                notes.append(f"{members[0].name} passed screening but not the full suite ({broken})")
        return kept, notes


def display(outcome: Outcome) -> str:
    """What an input gave, as the pull request's table shows it."""
    if outcome.kind == RAISES:
        return f"raises {outcome.exception}"
    if outcome.kind == TIMEOUT:
        return "does not return"
    if outcome.kind == CRASHED:
        return "crashes the interpreter"
    if outcome.kind == EXAMPLE:
        return outcome.text + ("" if outcome.ok else " (not what the docstring says)")
    if outcome.kind == OPAQUE:
        return outcome.text
    return outcome.text or outcome.kind


def _group(
    members: Sequence[Version],
    *,
    shipped: bool,
    refuted_by: str = "",
    decision_test: str = "",
    patch: str = "",
) -> BehaviourGroup:
    return BehaviourGroup(
        members=tuple(m.name for m in members), patch=patch, shipped=shipped,
        validated=bool(members) and members[0].validated, decision_test=decision_test, refuted_by=refuted_by,
    )  # fmt: skip


def _unique(name: str, taken: set[str]) -> str:
    """A model's answers may share a description: each compared patch is told apart by its name."""
    number = 2
    unique = name
    while unique in taken:
        unique = f"{name} (patch {number})"
        number += 1
    return unique


def _content(changes: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(changes.items()))


def _refuted(
    grouped: list[list[str]], seen: Mapping[str, Mapping[int, Outcome]], shown: Mapping[int, tuple]
) -> dict[str, str]:
    """Group leaders whose patch gets a docstring example wrong that another group's gets right:
    the documentation is an oracle, and it decides against them."""
    found: dict[str, str] = {}
    heads = [g[0] for g in grouped]
    for head in heads:
        for probe, outcome in seen.get(head, {}).items():
            if outcome.kind != EXAMPLE or outcome.ok:
                continue
            if any(
                (other := seen.get(h, {}).get(probe)) is not None and other.kind == EXAMPLE and other.ok
                for h in heads
                if h != head
            ):
                found[head] = f"the docstring example `{shown[probe][1]}`"
                break
    return found


def _preference(
    plans: Mapping[int, tuple[ProbePlan, int]], heads: Sequence[Mapping[int, Outcome]]
) -> list[int]:
    """The inputs a reader takes in at a glance first: where every fix returns a value (a result
    to compare, not an exception), valid-looking inputs, shorter calls."""
    order: list[tuple[int, int, int, int]] = []
    for planned, offset in plans.values():
        for probe in planned.probes:
            flat = offset + probe.id
            values = all((o := seen.get(flat)) is not None and o.kind == VALUE for seen in heads)
            order.append((0 if values else 1, 0 if probe.typed else 1, len(probe.text), flat))
    return [p for *_, p in sorted(order)]


def _decision_tests(
    standing: Sequence[Sequence[Version]],
    outcomes: Mapping[str, Mapping[int, object]],
    seen: Mapping[str, Mapping[int, Outcome]],
    plans: Mapping[int, tuple[ProbePlan, int]],
    preference: Sequence[int],
) -> dict[str, str]:
    """For each standing group, a test that passes on its patch and fails on every other group's:
    the first input (in the reader's order) where its result differs from all the others', as an
    assertion of that result. A group no single input sets apart, or whose result there a test
    cannot state, gets none."""
    if len(standing) < 2:
        return {}
    probes = {offset + p.id: (planned, p) for planned, offset in plans.values() for p in planned.probes}
    heads = [g[0].name for g in standing]
    found: dict[str, str] = {}
    for head in heads:
        others = [h for h in heads if h != head]
        for flat in preference:
            mine = outcomes[head].get(flat)
            if mine is None or any(outcomes[o].get(flat) in (None, mine) for o in others):
                continue
            planned, probe = probes[flat]
            name = f"{Names(planned.info).make(probe.label)}_decides_{len(found) + 1}"
            case = decision_case(probe, seen[head][flat], name, head)
            if case is not None:
                found[head] = TestFile("", (case,)).render()
                break
    return found
