"""After a patch meets the verdict: its new tests written and proven, one more round for the
model's tests that fail on it, and the critic's review.

    AfterRepair(state, rounds).new_tests(targets) -> NewTests     the writers, before any repair
    .prove_new_tests(new_tests, targets)                          ship what its proof shows
    .qa_round(...), .critique(...)                                only when a model repairs
    .review_overfit(targets)                                      the shipped patch's overfit risks
    .record_model(strategy)                                       the model's part, for the report

A step here may replace the patch only with one that meets the verdict too; otherwise the first
patch stands, and the code is never bent to fit a generated test.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from selfheal.agent.alternatives import Comparison
from selfheal.agent.events import Event, stage
from selfheal.agent.exceptions import ProviderError
from selfheal.agent.localize.codeindex import CodeBase, CodeIndex, Definition
from selfheal.agent.model.llm.accounting import BudgetSpent
from selfheal.agent.model.strategy import ModelStrategy
from selfheal.agent.newtests.cases import TestFile, TestGeneration
from selfheal.agent.newtests.edgecases.generate import EdgeCaseResult, generate_edge_cases
from selfheal.agent.newtests.generation import NewTests, TestContext
from selfheal.agent.newtests.proof import TestProver, remove_file
from selfheal.agent.repair.bypass import bypassed_functions
from selfheal.agent.repair.disagreement import BehaviourGroup, Disagreement, ModelJudgement
from selfheal.agent.repair.overfit import overfit_risks
from selfheal.agent.repair.strategy import Budget
from selfheal.agent.report.result import HealResult, Rejection
from selfheal.agent.rounds import MAX_VALIDATIONS_PER_ROUND, RepairRounds, screenings_of
from selfheal.agent.run.screen import Screener, SubprocessScreener
from selfheal.agent.run.testrun import CoverageMap, TestReport
from selfheal.agent.run.workspace import WorkspaceError
from selfheal.agent.state import HealState, restore, snapshot
from selfheal.agent.verdict import NewTestEvidence, Verdict, with_new_tests, with_tree_changes
from selfheal.sandbox.exceptions import WorkspaceTrap

QA_ROUND_SEARCH = 10  # search candidates after the model's, in the round for failing generated tests
QA_ROUND_S = 90.0


class AfterRepair:
    def __init__(self, state: HealState, rounds: RepairRounds) -> None:
        self.state = state
        self.rounds = rounds
        self.comparison: Comparison | None = None

    def compare_fixes(self, baseline: TestReport) -> None:
        """Where the round's plausible patches disagree (agent/alternatives.py), into
        `result.disagreement`; with a model, its judgement of which fix the code means."""
        self.comparison = Comparison(self.state, self.rounds)
        disagreement = self.comparison.compare(baseline)
        shipped = next((g for g in disagreement.groups if g.shipped), None)
        if shipped is not None and shipped.refuted_by:
            # the documentation contradicts the shipped patch: a fix it allows ships instead
            for group in [g for g in disagreement.standing if g.validated]:
                if self._ship(group, baseline):
                    self._put_first(group)
                    self.state.result.notes.append(
                        f"{shipped.members[0]} passed the tests but contradicts {shipped.refuted_by}; "
                        f"{group.members[0]} ships instead"
                    )
                    break
            disagreement = self.state.result.disagreement
        model = self.state.model
        if disagreement.open and model is not None and model.judge is not None:
            self.state.model_step(lambda: self.judge(model, baseline))

    def judge(self, model: ModelStrategy, baseline: TestReport) -> None:
        """The model reads the code and the groups' differences and says which fix the code means.
        Advice: it may put another group's patch first, only when that patch meets the verdict; the
        disagreement and the draft stay."""
        state, result, comparison = self.state, self.state.result, self.comparison
        disagreement = result.disagreement
        assert comparison is not None and disagreement is not None
        standing = list(disagreement.standing)
        paths = sorted({p for g in standing for p in comparison.changes[g.members[0]]})
        code = "\n\n".join(f"# {p}\n{state.base_text(p)}" for p in paths)
        fixes = "\n\n".join(f"Fix {i + 1}: {g.members[0]}\n{g.patch}" for i, g in enumerate(standing))
        header = "| input | before | " + " | ".join(f"fix {i + 1}" for i in range(len(standing))) + " |"
        rows = [f"| {i.call} | {i.base} | " + " | ".join(i.results) + " |" for i in disagreement.inputs]
        with stage(state.events, "judge", fixes=len(standing)) as info:
            answer = model.judge_fixes(code=code, fixes=fixes, differences="\n".join([header, *rows]))
            info.update(answer=list(answer) if answer else None)
        if answer is None:
            return
        number, reasons = answer
        preferred = number - 1 if number is not None and 1 <= number <= len(standing) else None
        chosen = standing[preferred] if preferred is not None else None
        if chosen is not None and not chosen.shipped and self._ship(chosen, baseline):
            self._put_first(chosen)
            preferred = 0
            result.notes.append(
                f"the model judged another of the fixes the tests allow to be meant: {reasons}"
            )
        result.disagreement = replace(
            result.disagreement, judgement=ModelJudgement(preferred, reasons, provider=state.config.provider)
        )

    def _put_first(self, chosen: BehaviourGroup) -> None:
        """`chosen` is now the shipped group: first among the standing ones, the table's columns
        in the new order."""
        result = self.state.result
        disagreement = result.disagreement
        assert disagreement is not None
        standing = [chosen, *[g for g in disagreement.standing if g is not chosen]]
        groups = [replace(g, shipped=g is chosen) for g in standing]
        groups += [replace(g, shipped=False) for g in disagreement.groups if g.refuted_by]
        result.disagreement = replace(
            disagreement, groups=tuple(groups), inputs=_reordered(disagreement, standing)
        )

    def _ship(self, group: BehaviourGroup, baseline: TestReport) -> bool:
        """Put another group's patch in place of the shipped one, when it meets the verdict."""
        result, rounds = self.state.result, self.rounds
        assert self.comparison is not None
        candidate = self.comparison.candidates[group.members[0]]
        kept = snapshot(result)
        result.fixes = result.fixes[:-1]
        if rounds.validate(candidate, rounds.accepted, baseline).holds:
            return True
        restore(result, kept)
        return False

    def alternatives(self) -> list[dict[str, str]]:
        """The changes of each other fix the tests allow (the standing groups besides the shipped
        one), in the disagreement's order."""
        disagreement = self.state.result.disagreement
        if self.comparison is None or disagreement is None or not disagreement.open:
            return []
        return [self.comparison.changes[g.members[0]] for g in disagreement.standing if not g.shipped]

    def patch_replaced(self, why: str) -> None:
        """A later step replaced the compared patch: the comparison no longer describes it."""
        result = self.state.result
        self.comparison = None
        description = result.fixes[-1].description if result.fixes else "the patch"
        result.disagreement = Disagreement(
            groups=(BehaviourGroup((description,), result.patch, shipped=True, validated=True),),
            plausible=1,
            notes=(f"{why}; the plausible patches of the search were not compared with it",),
        )

    def new_tests(self, targets: list[str]) -> NewTests:
        state = self.state
        files = sorted({t.split("::", 1)[0] for t in targets})
        existing = []
        for path in files[:3]:
            try:
                existing.append(f"# {path}\n{state.workspace.base_text(path)}")
            except (WorkspaceError, UnicodeDecodeError):
                continue
        failing = "\n".join(
            f"{t}: {(state.result.baseline.outcomes[t].message.strip().splitlines() or ['failed'])[0][:200]}"
            for t in targets[:10]
        )
        model = state.model
        return NewTests(
            TestProver(state.runner, state.fresh_tree(), state.suite_writes),
            state.events,
            qa=model.qa if model is not None else None,
            edge_cases=self.edge_cases,
            context=TestContext(
                failing=failing, existing="\n\n".join(existing),
                issue=str(state.config.extra.get("context") or ""),
                lessons=model.lessons if model is not None else lambda: "(none yet)",
            ),
            existing_files=frozenset(state.workspace.files),
        )  # fmt: skip

    def test_sources(self, tests: list[str]) -> dict[str, str]:
        """The source of each test function (its file's text when the function cannot be found)."""
        found: dict[str, str] = {}
        for test in tests:
            path, _, rest = test.partition("::")
            try:
                text = self.state.workspace.base_text(path)
            except (WorkspaceError, UnicodeDecodeError):
                continue
            name = rest.split("::")[-1].split("[", 1)[0]
            definition = next(iter(CodeIndex(CodeBase({path: text})).find(name, file=path)), None)
            found[test] = (
                "\n".join(text.splitlines()[definition.line - 1 : definition.end_line])
                if definition
                else text
            )
        return found

    def review_overfit(self, targets: list[str]) -> None:
        """Signs in the shipped patch that it fits the failing tests rather than fixing the bug, for
        the pull request: the verdict cannot see them, since the tests pass honestly."""
        result = self.state.result
        tests = self.rounds.test_texts(targets)
        with stage(self.state.events, "overfit_review") as info:
            result.overfit_risks = tuple(overfit_risks(result.base_texts, result.changes, tests))
            result.bypass = bypassed_functions(result.base_texts, result.changes)
            info.update(
                risks=len(result.overfit_risks),
                kinds=sorted({r.kind for r in result.overfit_risks}),
                bypass=list(result.bypass),
            )

    def edge_cases(
        self,
        definition: Definition,
        module: str,
        base_text: str,
        patched_text: str,
        alternatives: Sequence[str] = (),
    ) -> EdgeCaseResult:
        """The embedded generator's tests for one changed function (no model)."""
        state = self.state
        return generate_edge_cases(
            state.session, state.python, path=definition.file, function=definition.qualname, module=module,
            base_text=base_text, patched_text=patched_text, existing_tests=state.existing_test_texts(),
            source_dirs=state.runner.source_dirs, seed=state.config.seed, alternatives=alternatives,
        )  # fmt: skip

    def prove_new_tests(self, new_tests: NewTests, targets: list[str], reuse: bool = False) -> None:
        """The new tests, proven on the base and the patched code; a patch whose code changed
        files outside itself in a proof run is refused there (rule 9), as in the verdict's run."""
        result = self.state.result
        with stage(self.state.events, "new_tests") as info:
            generation, files = self._generate(new_tests, targets, reuse, self.alternatives())
            if generation.patch_wrote:
                assert result.verdict is not None
                refused = with_tree_changes(
                    result.verdict, generation.patch_wrote, "a proof run of the new tests on the patched code"
                )
                info.update(status=refused.status, violations=refused.violations)
                self._refuse_patch(refused)
                return
            result.tests, result.test_files = generation, files
            self._refute(generation.refuting())
            prefix = f"{result.project_dir}/" if result.project_dir else ""
            evidence = tuple(
                NewTestEvidence(prefix + p.path, p.case.name, p.fails_on_base, p.passes_on_patch)
                for p in generation.shipped
            )
            assert result.verdict is not None
            result.verdict = with_new_tests(result.verdict, evidence)
            info.update(
                fail_to_pass=sum(e.kind == "fail_to_pass" for e in evidence),
                guard=sum(e.kind == "guard" for e in evidence),
                discarded=len(generation.discarded),
                contested=len(generation.contested),
                risks=len(generation.risks),
            )

    def _refute(self, refuting: dict[int, str]) -> None:
        """Other fixes an oracle test (a docstring example) fails on are not fixes the code allows."""
        result = self.state.result
        disagreement = result.disagreement
        if not refuting or disagreement is None:
            return
        others = [g for g in disagreement.standing if not g.shipped]
        refuted = {others[i].members[0]: why for i, why in refuting.items() if i < len(others)}
        result.disagreement = replace(
            disagreement,
            groups=tuple(
                replace(g, refuted_by=refuted[g.members[0]]) if g.members[0] in refuted else g
                for g in disagreement.groups
            ),
        )

    def _refuse_patch(self, verdict: Verdict) -> None:
        """The patch that held fails the verdict after all: it goes to the refused candidates, and
        the result holds no patch."""
        result = self.state.result
        for fix in result.fixes[-1:]:
            result.rejections.append(Rejection(fix, verdict))
        result.verdict, result.after, result.changes, result.base_texts = None, None, {}, {}
        result.patch, result.fixes, result.tests, result.test_files = "", (), TestGeneration(), {}
        result.notes.append(f"the patch was refused after its verdict: {'; '.join(verdict.violations)}")

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
            self.patch_replaced(
                "the model's tests failed on the first patch and a further repair replaced it"
            )
            self.prove_new_tests(new_tests, targets, reuse=True)
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
                self.patch_replaced(
                    "the critic sent the first patch back and the model's revision replaced it"
                )
                self.prove_new_tests(new_tests, targets, reuse=True)
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

    def _generate(
        self, new_tests: NewTests, targets: list[str], reuse: bool = False, alternatives: Sequence = ()
    ):
        result = self.state.result
        patch = (result.changes, result.base_texts, result.fixes)
        if reuse:
            return new_tests.for_patch(*patch, targets, reuse=True, alternatives=alternatives)
        try:
            return new_tests.for_patch(*patch, targets, alternatives=alternatives)
        except (BudgetSpent, ProviderError) as exc:
            # the model ran out while writing tests: prove what the other writers found
            self.state.model_stopped(exc)
            new_tests.qa = None
            return new_tests.for_patch(*patch, targets, alternatives=alternatives)

    def record_model(self, strategy: ModelStrategy) -> None:
        """The model's part, for the report, the trace and the metrics."""
        state = self.state
        usage = strategy.usage
        metrics = state.result.metrics
        metrics.tokens_in, metrics.tokens_out, metrics.cost_usd = (
            usage.tokens_in,
            usage.tokens_out,
            usage.cost_usd,
        )
        log = strategy.generator.log
        now = time.time()
        state.events.emit(Event("generator", now, now, {
            "answers": log.answers, "not_applied": log.not_applied, "screened": log.screened,
            "degraded": log.not_applied, "tokens_in": log.usage.tokens_in, "tokens_out": log.usage.tokens_out,
            "cost_usd": log.usage.cost_usd, "tool_calls": strategy.tool_calls,
            "prompt": strategy.setup.prompts.get("generator").trace(),
            "model_stopped": strategy.stopped_because,
        }))  # fmt: skip
        if strategy.qa.log.records:
            state.events.emit(Event("qa", now, now, strategy.qa.log.trace()))
        confident = [d.diagnosis for d in strategy.diagnoses if d.diagnosis is not None]
        if confident:
            state.result.model_diagnosis = confident[-1]
        state.result.model = model_record(strategy)
        state.result.conversation = strategy.transcript.records()


def _reordered(disagreement: Disagreement, standing: list[BehaviourGroup]) -> tuple:
    """The distinguishing inputs with their results in the order of `standing`."""
    before = list(disagreement.standing)
    order = [before.index(g) for g in standing]
    return tuple(replace(i, results=tuple(i.results[k] for k in order)) for i in disagreement.inputs)


def model_record(strategy: ModelStrategy) -> dict:
    """The model's part for report.json and the pull request: what the debugger looked at, what
    it concluded from, the critic's decision, tokens and dollars per role, and why it stopped."""
    review = next((r for r, _ in reversed(strategy.reviews) if r is not None), None)
    diagnosis = next((d.diagnosis for d in reversed(strategy.diagnoses) if d.diagnosis is not None), None)
    return {
        "tool_calls": [
            {"tool": call["tool"], "arguments": _short(call["arguments"]), "ok": call["ok"]}
            for call in strategy.tool_calls[:20]
        ],
        "evidence": list(diagnosis.evidence[:10]) if diagnosis else [],
        "root_cause": diagnosis.root_cause if diagnosis else None,
        "critic": (
            {"decision": review.decision, "reason": review.reason, "concerns": list(review.concerns)}
            if review
            else None
        ),
        # why the model's answers did not become the patch: edits refused (tests, CI, unknown
        # files) or not matching the code
        "refused_edits": list(dict.fromkeys(strategy.generator.log.problems))[:10],
        "usage": strategy.ledger.as_dict(),
        "stopped_because": strategy.stopped_because or None,
    }


def _short(arguments: object, limit: int = 160) -> str:
    text = " ".join(str(arguments).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe_diagnosis(result: HealResult) -> str:
    model = result.model_diagnosis
    if model is not None:
        return f"{model.root_cause}\nLocation: {model.file}:{model.line} in {model.function}"
    return "\n".join(f"{f.file}:{f.line} in {f.function}: {f.description}" for f in result.fixes)
