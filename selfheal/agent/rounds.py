"""The repair rounds: the strategy's candidates, screened, and the best validated by the verdict.

    RepairRounds(state).run(screener, baseline, targets, coverage)   round 1 .. max-iterations
    .validate(candidate, accepted, baseline) -> Verdict              a full run on a fresh tree, the verdict
    .context(...), .screen_fn(...)                                   what the QA round and critic reuse

A round keeps its winner, or a partial fix that leaves fewer failures, on which the next round
builds; a candidate is never judged by its screening, only by the verdict's real run.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Protocol

from selfheal.agent.events import Event, EventSink, stage
from selfheal.agent.preference import candidate_changes, order_plausible
from selfheal.agent.repair.edits import Candidate, Edit, apply_edits
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.strategy import Budget, RepairContext, Screening
from selfheal.agent.report.checkpoints import Checkpoint, config_to_dict
from selfheal.agent.report.result import HEALED, NOT_HEALED, PARTIAL, Metrics, Rejection
from selfheal.agent.run.freshtree import tree_changes
from selfheal.agent.run.screen import Screener, ScreenResult
from selfheal.agent.run.testrun import CoverageMap, TestReport
from selfheal.agent.run.workspace import WorkspaceError
from selfheal.agent.state import HealState, restore, snapshot
from selfheal.agent.verdict import Evidence, RuleResult, Verdict, judge
from selfheal.sandbox.exceptions import WorkspaceTrap

MAX_VALIDATIONS_PER_ROUND = 3
SCREEN_COVERING_TESTS = 25
DID_NOT_RAISE = re.compile(r"DID NOT RAISE <class '([\w.]+)'>")
# unittest's assertRaises, as a call or as a context: "ValueError not raised by chunks"
NOT_RAISED = re.compile(r"(?:^|AssertionError: )([A-Za-z_][\w.]*) not raised\b", re.MULTILINE)


class CheckpointStore(Protocol):
    def save(self, checkpoint: Checkpoint) -> None: ...


class RepairRounds:
    def __init__(self, state: HealState) -> None:
        self.state = state
        # of the round that shipped: the changes it built on, its plausible candidates in the order
        # of preference, and those that met the verdict (what the comparison of fixes reads)
        self.accepted: dict[str, str] = {}
        self.plausible_order: list[Candidate] = []
        self.held: list[Candidate] = []

    def run(
        self,
        screener: Screener,
        baseline: TestReport,
        targets: list[str],
        coverage: CoverageMap | None,
        *,
        resume: Checkpoint | None = None,
        checkpoints: CheckpointStore | None = None,
    ) -> None:
        state = self.state
        config, result, strategy = state.config, state.result, state.strategy
        budget = Budget(config.max_candidates, config.max_minutes * 60)
        accepted: dict[str, str] = {}
        remaining = list(targets)
        hints = Hints(expected_exceptions=expected_exceptions(baseline, targets))
        start = 1
        if resume is not None:
            start, accepted = resume.iteration, dict(resume.accepted)
            remaining = [t for t in resume.remaining if t in targets] or remaining
            if accepted:
                self.validate(
                    Candidate((), "resumed", "the fixes of the replayed rounds", "", 0, "", 1.0),
                    accepted,
                    baseline,
                )
                result.fixes = resume.fixes
        for round_number in range(start, config.max_iterations + 1):
            result.iterations = round_number
            if checkpoints is not None:
                checkpoints.save(Checkpoint(
                    iteration=round_number, repo=str(config.repo), base_sha=state.workspace.base_sha,
                    config=config_to_dict(config), accepted=dict(accepted), remaining=tuple(remaining),
                    fixes=result.fixes,
                ))  # fmt: skip
                state.events.emit(Event("checkpoint", time.time(), time.time(), {"iteration": round_number}))
            context = self.context(remaining, accepted, baseline, coverage, hints)
            screen = self.screen_fn(screener, baseline, context, accepted, coverage)
            with (
                stage(
                    state.events, "repair", round=round_number, strategy=strategy.name, targets=len(remaining)
                ) as info,
                screenings_of(info, result.metrics),
            ):
                outcome = strategy.repair(context, screen, budget)
                info.update(
                    tried=outcome.tried,
                    plausible=len(outcome.plausible),
                    partial=outcome.partial is not None,
                    stopped=outcome.stopped_because,
                    widened=outcome.widened,
                )
            result.metrics.candidates_tried += outcome.tried
            for family, count in outcome.families_tried.items():
                result.families_tried[family] = result.families_tried.get(family, 0) + count
            result.ruled_out.extend(outcome.ruled_out)
            result.stopped_because = outcome.stopped_because

            winner = self.choose(outcome.plausible, accepted, baseline, remaining)
            if winner is not None:
                result.alternatives = [s.candidate for s in outcome.plausible if s is not winner]
                self.accepted = dict(accepted)
                return
            partial = outcome.partial
            if partial is None:
                return
            # Validating is one real run, not a candidate: a partial fix is kept even when the
            # search budget is spent; only a further round needs budget.
            verdict = self.validate(partial.candidate, accepted, baseline)
            if verdict.status != PARTIAL or len(verdict.still_failing) >= len(remaining):
                return
            accepted = dict(result.changes)
            remaining = list(verdict.still_failing)
            if budget.exhausted:
                return

    def context(
        self,
        remaining: list[str],
        accepted: dict[str, str],
        baseline: TestReport,
        coverage: CoverageMap | None,
        hints: Hints | None = None,
    ) -> RepairContext:
        state = self.state
        return RepairContext(
            sources={**state.sources, **accepted}, localization=state.result.localization,
            targets=tuple(remaining), passing=tuple(baseline.passing), coverage=coverage,
            durations={n: o.duration for n, o in baseline.outcomes.items()},
            hints=hints or Hints(expected_exceptions=expected_exceptions(baseline, remaining)),
            seed=state.config.seed, baseline_messages=state.baseline_messages,
            target_tests=self.test_texts(remaining),
            recalled=state.recalled_order,
        )  # fmt: skip

    def screen_fn(
        self,
        screener: Screener,
        baseline: TestReport,
        context: RepairContext,
        accepted: dict[str, str],
        coverage: CoverageMap | None,
    ):
        state = self.state
        metrics = state.result.metrics

        # A candidate whose failing tests fail exactly as before skips its covering tests.
        unchanged = (
            {t: context.baseline_messages[t] for t in context.targets}
            if all(context.baseline_messages.get(t) for t in context.targets)
            else None
        )

        def screen(candidate: Candidate) -> Screening:
            changes = {**accepted, **apply_edits(context.sources, candidate.edits)}
            lines = [
                (e.file, line) for e in candidate.edits for line in edited_lines(context.sources[e.file], e)
            ]
            covering = covering_for_lines(lines, coverage, baseline)[:SCREEN_COVERING_TESTS]
            tests = [*context.targets, *covering]
            outcome: ScreenResult = screener.screen(
                changes,
                tests,
                screen_timeout(state.config.test_timeout, tests, baseline),
                test_timeout=screen_test_timeout(state.config.test_timeout, tests, baseline),
                unchanged=unchanged,
            )
            metrics.screened += 1
            metrics.screen_s += outcome.duration_s
            if metrics.first_plausible_at is not None:
                metrics.screened_after_plausible += 1
            fixed = frozenset(t for t in context.targets if outcome.passed(t))
            screening = Screening(
                candidate=candidate,
                fixed=fixed,
                still_failing=frozenset(context.targets) - fixed,
                broken=frozenset(t for t in covering if outcome.failed(t)),
                messages=outcome.messages,
                error=outcome.error,
                tests=tuple(tests),
            )
            if screening.plausible and metrics.first_plausible_at is None:
                metrics.first_plausible_at = metrics.screened
            _emit_screen(state.events, screening, metrics.screened, outcome)
            return screening

        return screen

    def choose(
        self,
        plausible: list[Screening],
        accepted: dict[str, str],
        baseline: TestReport,
        targets: Sequence[str] = (),
    ) -> Screening | None:
        """The round's winner among candidates that screened as plausible. Each strategy's
        candidates are first put in order of preference (agent/preference.py: no overfit risk
        first; where the failing tests crashed, one that changes only what raised; one that
        changes the computation before one that only bypasses the failing path; one that agrees
        with the code's own documentation; the least behaviour changed on generated inputs; a
        value corrected where it is set before where it is read). From one strategy, the first
        that meets the verdict, unless it has overfit risks (agent/repair/overfit.py): then the
        next that meets it without any, if the validations allow. From several strategies, the
        first of each compete: no overfit risk, changing only what raised where the failing tests
        crashed, no bypass, agreeing with the code's documentation, then tests passed, then the
        least behaviour changed, then the smaller patch."""
        result = self.state.result
        tests = self.test_texts(list(targets))
        plausible, preferences = order_plausible(self.state, plausible, accepted, tests)
        self.plausible_order = [s.candidate for s in plausible]
        self.held = []
        strategies = list(dict.fromkeys(s.candidate.strategy for s in plausible))
        before = snapshot(result)
        held: list[tuple[tuple, Screening, dict]] = []
        validations = 0
        for strategy in strategies:
            for screening in [s for s in plausible if s.candidate.strategy == strategy]:
                if validations >= MAX_VALIDATIONS_PER_ROUND:
                    break
                validations += 1
                restore(result, before)
                if self.validate(screening.candidate, accepted, baseline).holds:
                    after = result.after
                    passed = len(after.passing) if after is not None else 0
                    # the preference read the same changes the verdict just judged
                    preference = preferences[id(screening)]
                    risky, more_than_raised, bypass, undocumented, behaviour, _ = preference.key
                    size = patch_size(result.patch)
                    key = (
                        risky, more_than_raised, bypass, undocumented, -passed, behaviour, size,
                        strategies.index(strategy),
                    )  # fmt: skip
                    held.append((key, screening, snapshot(result)))
                    self.held.append(screening.candidate)
                    if not risky:
                        break
            if held and len(strategies) == 1:
                break
        if not held:
            return None  # a partial verdict of the last one stays, as the round's partial fix may use it
        key, winner, kept = min(held, key=lambda h: h[0])
        restore(result, kept)
        result.documented[winner.candidate.key] = preferences[id(winner)].documented
        if len(held) > 1:
            now = time.time()
            self.state.events.emit(Event("choose", now, now, {
                "winner": winner.candidate.description, "strategy": winner.candidate.strategy,
                "competitors": [
                    {"candidate": s.candidate.description, "strategy": s.candidate.strategy,
                     "overfit_risk": k[0], "only_what_raised": not k[1], "bypass": k[2],
                     "documented": not k[3], "passed": -k[4],
                     "behaviour_changed": None if k[5] == math.inf else k[5], "patch_lines": k[6]}
                    for k, s, _ in held
                ],
            }))  # fmt: skip
        return winner

    def test_texts(self, tests: list[str]) -> dict[str, str]:
        """Each test id -> its file's text at the base (tests whose file cannot be read left out)."""
        found: dict[str, str] = {}
        for test in tests:
            try:
                found[test] = self.state.workspace.base_text(test.partition("::")[0])
            except (WorkspaceError, UnicodeDecodeError):
                continue
        return found

    def validate(
        self,
        candidate: Candidate,
        accepted: dict[str, str],
        baseline: TestReport,
        tests: Mapping[str, str] | None = None,
    ) -> Verdict:
        """A clean, real run of the full test command on the patched files, then the verdict. The
        run starts from a tree made afresh (the base, the patched files, `tests`: new test files
        that must run with it, and nothing an earlier run left); what the run itself adds, changes
        or removes there is rule 9's. The tree goes back to the base afterwards."""
        state, result = self.state, self.state.result
        changes = candidate_changes(state, candidate, accepted)
        patch = state.workspace.diff(changes)
        tree = state.fresh_tree()
        with stage(state.events, "validate", candidate=candidate.description) as info:
            settled = False
            try:
                fresh = tree.prepare({**(tests or {}), **changes})
                if fresh.cleared:  # what earlier runs had left: gone before this one, not its doing
                    info.update(cleared=list(fresh.cleared[:10]))
                after, _ = state.runner.run()
                after_run, settled = tree.settle(), True
                evidence = Evidence(tree_changes(fresh.expected, after_run, state.suite_writes))
            except WorkspaceTrap as exc:
                info.update(status=NOT_HEALED, violations=[str(exc)])
                return self._refuse(candidate, f"the patch could not be put in place: {exc}")
            finally:
                if not settled:  # the runs that follow (screening, probes) expect the base
                    tree.restore()
            verdict = judge(
                baseline=baseline, flaky=set(result.flaky), after=after, changes=changes,
                base_texts={p: state.base_text(p) for p in changes}, patch=patch,
                protected=state.config.protected,
                applies=state.workspace.check_applies(patch),
                untargeted=frozenset(result.untargeted), evidence=evidence,
                failing_tests=self.test_texts([
                    t for t in baseline.failing if t not in result.flaky and t not in result.untargeted
                ]),
            )  # fmt: skip
            info.update(
                status=verdict.status,
                healed=len(verdict.healed),
                regressions=list(verdict.regressions[:10]),
                violations=verdict.violations,
            )
        result.metrics.validations += 1
        if verdict.status in (HEALED, PARTIAL):
            result.verdict = verdict
            result.after = after
            result.changes = changes
            result.base_texts = {p: state.base_text(p) for p in changes}
            result.patch = state.workspace.diff(changes, in_repo=True)
            result.fixes = (*result.fixes, candidate)
        else:
            result.rejections.append(Rejection(candidate, verdict))
        return verdict

    def _refuse(self, candidate: Candidate, why: str) -> Verdict:
        """A candidate that never reached the verdict's test run: refused with the reason."""
        verdict = Verdict(NOT_HEALED, (RuleResult(6, False, why),), (), (), (), ())
        self.state.result.metrics.validations += 1
        self.state.result.rejections.append(Rejection(candidate, verdict))
        return verdict


def changed_paths(before: dict[str, str] | None, after: dict[str, str] | None) -> list[str]:
    """Paths a run created, changed or deleted (none when either fingerprint is missing)."""
    if before is None or after is None:
        return []
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def covering_for_lines(lines, coverage: CoverageMap | None, baseline: TestReport) -> list[str]:
    """Passing tests that run any of `lines` (path, line), fastest first."""
    if coverage is None:
        return []
    passing = set(baseline.passing)
    chosen: dict[str, None] = {}
    for path, line in lines:
        # a line no test executed runs at import (a module constant) or never: every test
        # that uses its file may see the change
        for test in coverage.tests_covering(path, line) or coverage.tests_using(path):
            if test in passing:
                chosen[test] = None
    durations = baseline.outcomes
    return sorted(chosen, key=lambda t: (durations[t].duration if t in durations else 0.0, t))


def screen_test_timeout(test_timeout: float, tests: list[str], baseline: TestReport) -> float:
    """Per-test limit while screening: generous for tests that finished at baseline, short
    enough that a candidate which keeps a hanging test hanging costs little."""
    finished = [
        baseline.outcomes[t].duration
        for t in tests
        if t in baseline.outcomes and "per-test timeout" not in baseline.outcomes[t].message
    ]
    slowest = max(finished, default=1.0)
    return min(test_timeout, max(0.5, 10 * slowest + 0.5))


def screen_timeout(test_timeout: float, tests: list[str], baseline: TestReport) -> float:
    durations = [baseline.outcomes[t].duration for t in tests if t in baseline.outcomes]
    typical = statistics.median(durations) if durations else 1.0
    return min(test_timeout * max(1, len(tests)), 5.0 + 3 * sum(durations) + 10 * typical)


def patch_size(patch: str) -> int:
    return sum(1 for line in patch.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))


def expected_exceptions(baseline: TestReport, targets: list[str]) -> tuple[str, ...]:
    found: list[str] = []
    for test in targets:
        outcome = baseline.outcomes.get(test)
        if outcome is None:
            continue
        text = outcome.message + "\n" + outcome.details
        for match in [*DID_NOT_RAISE.finditer(text), *NOT_RAISED.finditer(text)]:
            name = match.group(1).rsplit(".", 1)[-1]
            if name not in found:
                found.append(name)
    return tuple(found)


def edited_lines(text: str, edit: Edit) -> range:
    """Base lines whose covering tests screen an edit: every line it replaces, and for code
    inserted at the start of a line also the line before, since the new code runs right after it
    (`x = f()` + an inserted line runs in the tests that ran `x = f()`, not only in those that
    reach the next statement)."""
    data = text.encode("utf-8")
    first = data[: edit.start].count(b"\n") + 1
    last = data[: max(edit.start, edit.end - 1)].count(b"\n") + 1
    at_line_start = edit.start == 0 or data[edit.start - 1 : edit.start] == b"\n"
    if edit.start == edit.end and at_line_start and first > 1:
        first -= 1
    return range(first, last + 1)


def _emit_screen(events: EventSink, screening: Screening, count: int, outcome: ScreenResult) -> None:
    """One candidate's screening in the trace: what it fixed and broke, what it cost, and which of
    its tests were stopped by their limit (a candidate that leaves a loop costs about a second)."""
    now = time.time()
    stopped = sorted(t for t, o in outcome.outcomes.items() if o == "timeout")
    events.emit(Event("screen", now - outcome.duration_s, now, {
        "n": count,
        "candidate": screening.candidate.description,
        "family": screening.candidate.family,
        "fixed": len(screening.fixed),
        "still_failing": len(screening.still_failing),
        "broken": len(screening.broken),
        "plausible": screening.plausible,
        **({"stopped": stopped[:10], "stopped_count": len(stopped)} if stopped else {}),
        **({"error": screening.error} if screening.error else {}),
    }))  # fmt: skip


@contextmanager
def screenings_of(info: dict, metrics: Metrics) -> Iterator[None]:
    """A repair step's screenings in its finished event, also when the heal stops inside it:
    `screened` by this step, `in_all` since the heal began (the count a stopped heal reports)."""
    first = metrics.screened
    try:
        yield
    finally:
        info.update(screened=metrics.screened - first, in_all=metrics.screened)
