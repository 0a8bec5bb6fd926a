"""The model's steps after a patch meets the verdict: one more round for its tests that fail on
the patch, and the critic's review with one revision. Either replaces the patch only with one that
meets the verdict too; otherwise the first patch stands, and the code is never bent to fit a
generated test.

    ModelRounds(after).qa_round(baseline, coverage, new_tests, targets)
    .critique(screener, baseline, targets, coverage, new_tests)
"""

from __future__ import annotations

from dataclasses import replace

from selfheal.agent.events import stage
from selfheal.agent.newtests.cases import TestFile
from selfheal.agent.newtests.generation import NewTests
from selfheal.agent.newtests.proof import remove_file
from selfheal.agent.postrepair import AfterRepair
from selfheal.agent.repair.strategy import Budget
from selfheal.agent.report.result import HealResult
from selfheal.agent.rounds import MAX_VALIDATIONS_PER_ROUND, screenings_of
from selfheal.agent.run.screen import Screener, SubprocessScreener
from selfheal.agent.run.testrun import CoverageMap, TestReport
from selfheal.agent.state import restore, snapshot
from selfheal.sandbox.exceptions import WorkspaceTrap

QA_ROUND_SEARCH = 10  # search candidates after the model's, in the round for failing generated tests
QA_ROUND_S = 90.0


class ModelRounds:
    def __init__(self, after: AfterRepair) -> None:
        self.after = after
        self.state = after.state
        self.rounds = after.rounds

    def qa_round(
        self, baseline: TestReport, coverage: CoverageMap | None, new_tests: NewTests, targets: list[str]
    ) -> None:
        """The model's tests that fail on the patch are failures too: one more repair round aims
        at them, on top of the patch. A patch that makes them pass while every existing test still
        passes replaces the first; if there is none, the tests are discarded as contradicting the
        existing tests or asking for more than the bug, and the code is never bent to them."""
        state, rounds = self.state, self.rounds
        result, strategy = state.result, state.model
        failing = [
            p
            for p in result.tests.proven
            if not p.passes_on_patch and p.case.origin in ("spec_tests", "qa_adversarial")
        ]
        if strategy is None or not failing or result.verdict is None or not result.verdict.holds:
            return
        kept = snapshot(result)
        files: dict[str, list] = {}
        for proven in failing:
            files.setdefault(proven.path, []).append(proven.case)
        accepted = dict(result.changes)
        qa_ids = [p.nodeid for p in failing]
        replaced = False
        written = {path: TestFile(path, tuple(cases)).render() for path, cases in files.items()}
        try:
            for path, text in written.items():
                state.session.write_file(path, text)
            context = rounds.context(qa_ids, accepted, baseline, coverage)
            context = replace(context, baseline_messages={p.nodeid: p.patch_message for p in failing})
            screener = SubprocessScreener(state.session, state.runner, state.sources)
            # small: screening here is a pytest process per candidate, and the round is the model's
            budget = Budget(
                strategy.setup.samples + QA_ROUND_SEARCH, min(QA_ROUND_S, state.config.max_minutes * 15)
            )
            with (
                stage(
                    state.events, "repair", round="qa", strategy=strategy.name, targets=len(qa_ids)
                ) as info,
                screenings_of(info, result.metrics),
            ):
                outcome = strategy.repair(
                    context, rounds.screen_fn(screener, baseline, context, accepted, coverage), budget
                )
                info.update(
                    tried=outcome.tried, plausible=len(outcome.plausible), stopped=outcome.stopped_because
                )
            result.metrics.candidates_tried += outcome.tried
            for screening in outcome.plausible[:MAX_VALIDATIONS_PER_ROUND]:
                verdict = rounds.validate(screening.candidate, accepted, baseline, tests=written)
                after = result.after
                if (
                    verdict.holds
                    and after is not None
                    and all(
                        after.outcomes.get(t) is not None and after.outcomes[t].outcome == "passed"
                        for t in qa_ids
                    )
                ):
                    replaced = True
                    break
                restore(result, kept)
        except WorkspaceTrap as exc:
            result.notes.append(f"the round for the generated tests that failed on the patch stopped: {exc}")
            restore(result, kept)
        finally:
            for path in files:
                remove_file(state.session, state.python, path)
        if replaced:
            self.after.choice.patch_replaced(
                "the model's tests failed on the first patch and a further repair replaced it"
            )
            self.after.prove_new_tests(new_tests, targets, reuse=True)
            if result.verdict is not None and result.verdict.holds:
                result.iterations += 1
                result.notes.append(
                    f"{len(qa_ids)} generated test(s) failed on the first patch; a further repair "
                    "made them pass"
                )
                return
            restore(result, kept)
        reason = (
            "fails on the patched code, and no repair made it pass with every existing test still passing "
            "within the budget: it may contradict the existing tests or the spec; not shipped, and the "
            "code was not bent to it"
        )
        ids = {id(p.case) for p in failing}
        result.tests.discarded = [(c, reason if id(c) in ids else why) for c, why in result.tests.discarded]

    def critique(
        self,
        screener: Screener,
        baseline: TestReport,
        targets: list[str],
        coverage: CoverageMap | None,
        new_tests: NewTests,
    ) -> None:
        """The critic reviews a patch that meets the verdict. Sent back, the generator gets one more
        try with the critic's reason; its patch replaces the first only if it meets the verdict
        too. Otherwise the first ships, with the critic's concerns in the report."""
        state, rounds = self.state, self.rounds
        result, strategy = state.result, state.model
        if strategy is None or strategy.critic is None or result.verdict is None or not result.verdict.holds:
            return
        with stage(state.events, "critic") as info:
            review = strategy.review(
                diagnosis=_describe_diagnosis(result), patch=result.patch,
                failing="\n".join(targets[:10]), new_tests="\n\n".join(result.test_files.values()),
                lessons=strategy.lessons(),
            )  # fmt: skip
            info.update(
                decision=review.decision if review else "no usable answer",
                reason=review.reason if review else "",
                prompt=strategy.setup.prompts.get("critic").trace(),
            )
        if review is None or not review.sent_back:
            return
        result.critic = [review.reason, *review.concerns]
        if len(result.fixes) != 1:
            result.notes.append(
                "the critic sent the patch back; it was built over several rounds, so it stands"
            )
            return
        kept = snapshot(result)
        context = rounds.context(targets, {}, baseline, coverage)
        budget = Budget(1, state.config.max_minutes * 60)  # one answer: the critic's view is advice
        with stage(state.events, "revise", reason=review.reason[:200]) as info:
            outcome = strategy.revise(
                context, rounds.screen_fn(screener, baseline, context, {}, coverage), budget, review
            )
            info.update(tried=outcome.tried, plausible=len(outcome.plausible))
        result.metrics.candidates_tried += outcome.tried
        for screening in outcome.plausible[:1]:
            result.fixes = ()
            if rounds.validate(screening.candidate, {}, baseline).holds:
                self.after.choice.patch_replaced(
                    "the critic sent the first patch back and the model's revision replaced it"
                )
                self.after.prove_new_tests(new_tests, targets, reuse=True)
                if result.verdict is not None and result.verdict.holds:
                    result.notes.append(
                        f"the critic sent the first patch back ({review.reason}); this one replaced it"
                    )
                    result.critic = []
                    return
        restore(result, kept)
        result.notes.append(
            "the critic sent the patch back, and no other patch met the verdict: it ships with the "
            "critic's concerns listed; review it closely"
        )


def _describe_diagnosis(result: HealResult) -> str:
    model = result.model_diagnosis
    if model is not None:
        return f"{model.root_cause}\nLocation: {model.file}:{model.line} in {model.function}"
    return "\n".join(f"{f.file}:{f.line} in {f.function}: {f.description}" for f in result.fixes)
