"""After a patch meets the verdict: its new tests written and proven, and its overfit risks.

    AfterRepair(state, rounds, choice).new_tests(targets) -> NewTests     the writers, before any repair
    .prove_new_tests(new_tests, targets)                                  ship what its proof shows
    .review_overfit(targets)                                              the shipped patch's overfit risks

Which of several plausible patches ships is `fixchoice`'s; the model's round for its tests that
fail on the patch and the critic's review are `modelrounds`'. A step after the repair may replace
the patch only with one that meets the verdict too; otherwise the first patch stands, and the code
is never bent to fit a generated test.
"""

from __future__ import annotations

from collections.abc import Sequence

from selfheal.agent.events import stage
from selfheal.agent.exceptions import ProviderError
from selfheal.agent.fixchoice import FixChoice
from selfheal.agent.localize.codeindex import CodeBase, CodeIndex, Definition
from selfheal.agent.model.llm.accounting import BudgetSpent
from selfheal.agent.newtests.cases import TestGeneration
from selfheal.agent.newtests.edgecases.generate import EdgeCaseResult, generate_edge_cases
from selfheal.agent.newtests.generation import NewTests, TestContext
from selfheal.agent.newtests.proof import TestProver
from selfheal.agent.repair.bypass import bypassed_functions
from selfheal.agent.repair.overfit import overfit_risks
from selfheal.agent.report.result import Rejection
from selfheal.agent.rounds import RepairRounds
from selfheal.agent.run.workspace import WorkspaceError
from selfheal.agent.state import HealState
from selfheal.agent.verdict import NewTestEvidence, Verdict, with_new_tests, with_tree_changes


class AfterRepair:
    def __init__(self, state: HealState, rounds: RepairRounds, choice: FixChoice) -> None:
        self.state = state
        self.rounds = rounds
        self.choice = choice

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
            result.overfit_risks = tuple(
                overfit_risks(result.base_texts, result.changes, tests, self.state.sources)
            )
            crashed = result.localization.traceback_lines() if result.localization else None
            result.bypass = bypassed_functions(result.base_texts, result.changes, crashed)
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
            generation, files = self._generate(new_tests, targets, reuse, self.choice.alternatives())
            if generation.patch_wrote:
                assert result.verdict is not None
                refused = with_tree_changes(
                    result.verdict, generation.patch_wrote, "a proof run of the new tests on the patched code"
                )
                info.update(status=refused.status, violations=refused.violations)
                self._refuse_patch(refused)
                return
            result.tests, result.test_files = generation, files
            self.choice.refute(generation.refuting())
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

    def _refuse_patch(self, verdict: Verdict) -> None:
        """The patch that held fails the verdict after all: it goes to the refused candidates, and
        the result holds no patch."""
        result = self.state.result
        for fix in result.fixes[-1:]:
            result.rejections.append(Rejection(fix, verdict))
        result.verdict, result.after, result.changes, result.base_texts = None, None, {}, {}
        result.patch, result.fixes, result.tests, result.test_files = "", (), TestGeneration(), {}
        result.notes.append(f"the patch was refused after its verdict: {'; '.join(verdict.violations)}")

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
