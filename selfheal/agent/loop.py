"""One heal, top to bottom: baseline, flake check, localize, repair rounds, verdict.

    heal(config, sandbox, events) -> HealResult

The workspace is a copy; the sandbox session is opened once and closed at the end whatever
happens. Problems of the repo itself (tests that cannot run) end in a result with status
"error"; problems of the request (bad path, missing interpreter, unknown command) raise
`ConfigError` before anything is run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from selfheal.agent.config import HealConfig
from selfheal.agent.events import Event, EventSink, stage
from selfheal.agent.exceptions import ConfigError, InterpreterError, ProviderError, TestCommandError
from selfheal.agent.localize.codeindex import CodeBase, CodeIndex, Definition
from selfheal.agent.localize.spectrum import Localization, localize, source_files
from selfheal.agent.model.history import History
from selfheal.agent.model.llm.accounting import BudgetSpent
from selfheal.agent.model.strategy import ModelSetup, ModelStrategy
from selfheal.agent.model.toolbox import Toolbox
from selfheal.agent.model.tools import debugger_toolbox
from selfheal.agent.newtests.cases import TestFile
from selfheal.agent.newtests.edgecases.generate import EdgeCaseResult, generate_edge_cases
from selfheal.agent.newtests.generation import NewTests, TestContext
from selfheal.agent.newtests.proof import TestProver, remove_file
from selfheal.agent.repair.edits import Candidate, Edit, apply_edits
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.repair.strategy import Budget, RepairContext, RepairStrategy, Screening
from selfheal.agent.report.checkpoints import Checkpoint, config_to_dict
from selfheal.agent.report.result import (
    ERROR,
    HEALED,
    NOT_HEALED,
    NOTHING_TO_HEAL,
    PARTIAL,
    HealResult,
    Rejection,
)
from selfheal.agent.run.screen import ForkScreener, Screener, ScreenResult, SubprocessScreener
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.testrun import NOT_FOUND, CoverageMap, TestReport, TestRunner
from selfheal.agent.run.workspace import Origin, Workspace, WorkspaceError, git
from selfheal.agent.verdict import NewTestEvidence, RuleResult, Verdict, judge, with_new_tests
from selfheal.sandbox import Sandbox, SandboxInfo, Session
from selfheal.sandbox.exceptions import LimitExceeded, SetupFailed, WorkspaceTrap

MAX_VALIDATIONS_PER_ROUND = 3
QA_ROUND_SEARCH = 10  # search candidates after the model's, in the round for failing generated tests
QA_ROUND_S = 90.0
MAX_TEST_FILES_READ = 60  # existing test files the edge-case generator reads for input values
SCREEN_COVERING_TESTS = 25
WORKER_COLLECT_LIMIT = 400
DID_NOT_RAISE = re.compile(r"DID NOT RAISE <class '([\w.]+)'>")


def heal(
    config: HealConfig,
    sandbox: Sandbox,
    events: EventSink,
    strategy: RepairStrategy | None = None,
    model: ModelSetup | None = None,
    checkpoints: CheckpointStore | None = None,
    resume: Checkpoint | None = None,
) -> HealResult:
    """`checkpoints`: where each round's starting state is saved; `resume`: a saved state to
    start from instead of round 1 (`selfheal replay`)."""
    started = time.monotonic()
    origin = Origin.inspect(config.repo)
    # a local sandbox runs the tests on a host interpreter; a container brings its own
    # on GitHub the checkout's own .venv is the repository's choice of what the sandbox exposes
    python = (
        None
        if sandbox.interpreter_inside
        else resolve_python(config.python, origin.path, repo_venv=not config.require_contained)
    )
    workspace = Workspace.create(origin)
    try:
        with stage(events, "sandbox", backend=type(sandbox).__name__) as info:
            try:
                session = sandbox.start(
                    workspace.root, expose=interpreter_folders(python) if python else (), python=python
                )
            except SetupFailed as exc:
                info.update(error=str(exc))
                result = _setup_failed(config, workspace, str(exc))
                result.metrics.wall_s = time.monotonic() - started
                return result
            info.update(isolation=session.info.isolation, python=session.python or python)
        try:
            run = HealRun(
                config,
                workspace,
                session,
                events,
                strategy or SearchStrategy(),
                # the sandbox's own interpreter when it has one (a container's, or a mirror of
                # the host's that its uid can reach), else the host's
                python=session.python or python or config.python,
                model=model,
                checkpoints=checkpoints,
                resume=resume,
            )
            try:
                result = run.execute()
            except (LimitExceeded, WorkspaceTrap) as exc:
                # the tests outgrew the sandbox or broke selfheal's hold on the workspace: what
                # ran so far stands in the report, with the reason the heal could not go on
                result = run.finish(ERROR, error=f"the heal stopped: {exc}")
        finally:
            session.close()
    finally:
        if not config.keep_workspace:
            workspace.cleanup()
    result.metrics.wall_s = time.monotonic() - started
    return result


class CheckpointStore(Protocol):
    def save(self, checkpoint: Checkpoint) -> None: ...


def matches_target(nodeid: str, targets: tuple[str, ...]) -> bool:
    """A test id matches a target that names it, its file, its class or a folder above it."""
    for target in targets:
        target = target.rstrip("/") if target.endswith("/") and "::" not in target else target
        if nodeid == target or nodeid.startswith((f"{target}::", f"{target}/", f"{target}[")):
            return True
    return False


def _setup_failed(config: HealConfig, workspace: Workspace, error: str) -> HealResult:
    return HealResult(
        status=ERROR, repo=str(workspace.origin.path), base_sha=workspace.base_sha,
        test_command=config.test_command, provider=config.provider,
        sandbox=SandboxInfo("docker", False, "container; the dependency setup failed"),
        error=error, apply_root=str(workspace.toplevel), project_dir=workspace.origin.subdir,
    )  # fmt: skip


class HealRun:
    def __init__(
        self,
        config: HealConfig,
        workspace: Workspace,
        session: Session,
        events: EventSink,
        strategy: RepairStrategy,
        python: str | None = None,
        model: ModelSetup | None = None,
        checkpoints: CheckpointStore | None = None,
        resume: Checkpoint | None = None,
    ) -> None:
        self.config = config
        self.checkpoints = checkpoints
        self.resume = resume
        if resume is not None and resume.base_sha != workspace.base_sha:
            raise ConfigError(
                f"the checkpoint is of commit {resume.base_sha[:12]}, the repository is at "
                f"{workspace.base_sha[:12]}: replay needs the commit the run healed"
            )
        self.workspace = workspace
        self.session = session
        self.events = events
        self.strategy = strategy
        self.model = model
        self.python = python or resolve_python(
            config.python, workspace.origin.path, repo_venv=not config.require_contained
        )
        self.command = TestCommand.parse(config.test_command, self.python, workspace.root)
        self.runner = TestRunner(
            session, self.command, self.python, timeout=config.timeout,
            test_timeout=config.test_timeout,
            source_dirs=("src",) if any(f.startswith("src/") for f in workspace.files) else (),
        )  # fmt: skip
        self.sources = workspace.base_texts(source_files(workspace.files, config.protected, config.source))
        self.baseline_messages: dict[str, str] = {}
        self.result = HealResult(
            status=ERROR, repo=str(workspace.origin.path), base_sha=workspace.base_sha,
            test_command=config.test_command, provider=config.provider, sandbox=session.info,
            python=self.python,
            apply_root=str(workspace.toplevel), project_dir=workspace.origin.subdir,
        )  # fmt: skip
        self.result.notes.extend(config.extra.get("setting_notes", ()))
        if workspace.origin.dirty:
            self.result.notes.append(
                "the working tree differs from HEAD; the patch is against the files as they are on disk"
            )
        if not workspace.origin.is_git:
            self.result.notes.append("not a git repository: the patch is against a snapshot of the directory")

    # -- the heal -------------------------------------------------------------------------
    def execute(self) -> HealResult:
        result = self.result
        self.check_interpreter()
        baseline, coverage = self.run_baseline()
        result.baseline = baseline
        if not baseline.ran:
            return self.finish(ERROR, error=baseline.message)
        if not baseline.failing:
            return self.finish(NOTHING_TO_HEAL)
        result.flaky = self.flake_check(baseline)
        targets = [t for t in baseline.failing if t not in result.flaky]
        if not targets:
            result.notes.append("every failing test passed when re-run: they are flaky, not broken")
            return self.finish(NOTHING_TO_HEAL)
        if self.config.targets:
            chosen = [t for t in targets if matches_target(t, self.config.targets)]
            result.untargeted = tuple(t for t in targets if t not in chosen)
            if not chosen:
                result.notes.append(
                    f"none of the {len(targets)} failing tests matches the targets "
                    f"{', '.join(self.config.targets)}"
                )
                return self.finish(NOTHING_TO_HEAL)
            if result.untargeted:
                result.notes.append(
                    f"{len(result.untargeted)} failing tests outside the targets were left alone"
                )
            targets = chosen
        result.localization = self.localize(baseline, targets, coverage)
        if self.model is not None:
            self.strategy = self.model_strategy(self.model)
        if not result.localization.lines:
            return self.finish(
                NOT_HEALED,
                error="no suspicious line in project source: the "
                "failing tests execute no source file selfheal may change",
            )
        new_tests = self.new_tests(targets)
        self.model_step(
            lambda: new_tests.spec_first(result.localization, self.sources, self.test_sources(targets))
        )
        screener = self.start_screener(baseline, targets, coverage)
        try:
            self.repair_rounds(screener, baseline, targets, coverage)
            if result.verdict is not None and result.changes:
                self.prove_new_tests(new_tests, targets)
                self.model_step(lambda: self.qa_round(baseline, coverage, new_tests, targets))
                self.model_step(lambda: self.critique(screener, baseline, targets, coverage, new_tests))
        finally:
            screener.close()
            self.result.metrics.screener = screener.name
            if isinstance(self.strategy, ModelStrategy):
                self.record_model(self.strategy)
        status = result.verdict.status if result.verdict else NOT_HEALED
        return self.finish(status)

    def new_tests(self, targets: list[str]) -> NewTests:
        files = sorted({t.split("::", 1)[0] for t in targets})
        existing = []
        for path in files[:3]:
            try:
                existing.append(f"# {path}\n{self.workspace.base_text(path)}")
            except (WorkspaceError, UnicodeDecodeError):
                continue
        failing = "\n".join(
            f"{t}: {(self.result.baseline.outcomes[t].message.strip().splitlines() or ['failed'])[0][:200]}"
            for t in targets[:10]
        )
        qa = self.strategy.qa if isinstance(self.strategy, ModelStrategy) else None
        qa_lessons = (
            self.strategy.lessons if isinstance(self.strategy, ModelStrategy) else lambda: "(none yet)"
        )
        return NewTests(
            TestProver(self.session, self.runner, self.base_text, self.python),
            self.events,
            qa=qa,
            edge_cases=self.edge_cases,
            context=TestContext(
                failing=failing, existing="\n\n".join(existing),
                issue=str(self.config.extra.get("context") or ""),
                lessons=qa_lessons,
            ),
            existing_files=frozenset(self.workspace.files),
        )  # fmt: skip

    def test_sources(self, tests: list[str]) -> dict[str, str]:
        """The source of each test function (its file's text when the function cannot be found)."""
        found: dict[str, str] = {}
        for test in tests:
            path, _, rest = test.partition("::")
            try:
                text = self.workspace.base_text(path)
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

    def edge_cases(
        self, definition: Definition, module: str, base_text: str, patched_text: str
    ) -> EdgeCaseResult:
        """The embedded generator's tests for one changed function (no model)."""
        tests = [p for p in self.workspace.files if _is_test_file(p)][:MAX_TEST_FILES_READ]
        texts: dict[str, str] = {}
        for path in tests:
            try:
                texts[path] = self.workspace.base_text(path)
            except (WorkspaceError, UnicodeDecodeError):
                continue
        return generate_edge_cases(
            self.session, self.python, path=definition.file, function=definition.qualname, module=module,
            base_text=base_text, patched_text=patched_text, existing_tests=texts,
            source_dirs=self.runner.source_dirs, seed=self.config.seed,
        )  # fmt: skip

    def model_step(self, step) -> None:
        """A model step outside the repair strategy: a spent budget or a provider failure ends the
        model's part with the reason, never the heal."""
        try:
            step()
        except (BudgetSpent, ProviderError) as exc:
            if isinstance(self.strategy, ModelStrategy) and not self.strategy.stopped_because:
                self.strategy.stopped_because = f"model stopped: {exc}"

    def prove_new_tests(self, new_tests: NewTests, targets: list[str], reuse: bool = False) -> None:
        result = self.result
        with stage(self.events, "new_tests") as info:
            generation, files = self._generate(new_tests, targets, reuse)
            result.tests, result.test_files = generation, files
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
                risks=len(generation.risks),
            )

    def qa_round(
        self, baseline: TestReport, coverage: CoverageMap | None, new_tests: NewTests, targets: list[str]
    ) -> None:
        """The model's tests that fail on the patch are failures too: one more repair round aims
        at them, on top of the patch. A patch that makes them pass while every existing test still
        passes replaces the first; if there is none, the tests are discarded as contradicting the
        existing tests or asking for more than the bug, and the code is never bent to them."""
        result, strategy = self.result, self.strategy
        failing = [
            p
            for p in result.tests.proven
            if p.kind is None and p.case.origin in ("spec_tests", "qa_adversarial")
        ]
        if not isinstance(strategy, ModelStrategy) or not failing or not result.verdict.holds:
            return
        kept = _snapshot(result)
        files: dict[str, list] = {}
        for proven in failing:
            files.setdefault(proven.path, []).append(proven.case)
        accepted = dict(result.changes)
        qa_ids = [p.nodeid for p in failing]
        replaced = False
        try:
            for path, cases in files.items():
                self.session.write_file(path, TestFile(path, tuple(cases)).render())
            context = self._context(qa_ids, accepted, baseline, coverage)
            context = replace(context, baseline_messages={p.nodeid: p.patch_message for p in failing})
            screener = SubprocessScreener(self.session, self.runner, self.sources)
            # small: screening here is a pytest process per candidate, and the round is the model's
            budget = Budget(
                strategy.setup.samples + QA_ROUND_SEARCH, min(QA_ROUND_S, self.config.max_minutes * 15)
            )
            with stage(
                self.events, "repair", round="qa", strategy=strategy.name, targets=len(qa_ids)
            ) as info:
                outcome = strategy.repair(
                    context, self._screen_fn(screener, baseline, context, accepted, coverage), budget
                )
                info.update(
                    tried=outcome.tried, plausible=len(outcome.plausible), stopped=outcome.stopped_because
                )
            result.metrics.candidates_tried += outcome.tried
            for screening in outcome.plausible[:MAX_VALIDATIONS_PER_ROUND]:
                verdict = self.validate(screening.candidate, accepted, baseline)
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
                _restore(result, kept)
        except WorkspaceTrap as exc:
            result.notes.append(f"the round for the generated tests that failed on the patch stopped: {exc}")
            _restore(result, kept)
        finally:
            for path in files:
                remove_file(self.session, self.python, path)
        if replaced:
            self.prove_new_tests(new_tests, targets, reuse=True)
            if result.verdict is not None and result.verdict.holds:
                result.iterations += 1
                result.notes.append(
                    f"{len(qa_ids)} generated test(s) failed on the first patch; a further repair "
                    "made them pass"
                )
                return
            _restore(result, kept)
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
        result, strategy = self.result, self.strategy
        if not isinstance(strategy, ModelStrategy) or strategy.critic is None or not result.verdict.holds:
            return
        with stage(self.events, "critic") as info:
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
        kept = _snapshot(result)
        context = self._context(targets, {}, baseline, coverage)
        budget = Budget(1, self.config.max_minutes * 60)  # one answer: the critic's view is advice
        with stage(self.events, "revise", reason=review.reason[:200]) as info:
            outcome = strategy.revise(
                context, self._screen_fn(screener, baseline, context, {}, coverage), budget, review
            )
            info.update(tried=outcome.tried, plausible=len(outcome.plausible))
        result.metrics.candidates_tried += outcome.tried
        for screening in outcome.plausible[:1]:
            result.fixes = ()
            if self.validate(screening.candidate, {}, baseline).holds:
                self.prove_new_tests(new_tests, targets, reuse=True)
                if result.verdict is not None and result.verdict.holds:
                    result.notes.append(
                        f"the critic sent the first patch back ({review.reason}); this one replaced it"
                    )
                    result.critic = []
                    return
        _restore(result, kept)
        result.notes.append(
            "the critic sent the patch back, and no other patch met the verdict: it ships with the "
            "critic's concerns listed; review it closely"
        )

    def _generate(self, new_tests: NewTests, targets: list[str], reuse: bool = False):
        if reuse:
            return new_tests.for_patch(*self._patch(), targets, reuse=True)
        try:
            return new_tests.for_patch(*self._patch(), targets)
        except (BudgetSpent, ProviderError) as exc:
            # the model ran out while writing tests: prove what the other writers found
            if isinstance(self.strategy, ModelStrategy) and not self.strategy.stopped_because:
                self.strategy.stopped_because = f"model stopped: {exc}"
            new_tests.qa = None
            return new_tests.for_patch(*self._patch(), targets)

    def _patch(self) -> tuple[dict[str, str], dict[str, str], tuple[Candidate, ...]]:
        return self.result.changes, self.result.base_texts, self.result.fixes

    def finish(self, status: str, *, error: str | None = None) -> HealResult:
        self.result.status = status
        self.result.error = error
        self.result.metrics.test_runs = self.runner.runs
        return self.result

    def record_model(self, strategy: ModelStrategy) -> None:
        """The model's part, for the report, the trace and the metrics."""
        usage = strategy.usage
        metrics = self.result.metrics
        metrics.tokens_in, metrics.tokens_out, metrics.cost_usd = (
            usage.tokens_in,
            usage.tokens_out,
            usage.cost_usd,
        )
        log = strategy.generator.log
        now = time.time()
        self.events.emit(Event("generator", now, now, {
            "answers": log.answers, "not_applied": log.not_applied, "screened": log.screened,
            "degraded": log.not_applied, "tokens_in": log.usage.tokens_in, "tokens_out": log.usage.tokens_out,
            "cost_usd": log.usage.cost_usd, "tool_calls": strategy.tool_calls,
            "prompt": strategy.setup.prompts.get("generator").trace(),
            "model_stopped": strategy.stopped_because,
        }))  # fmt: skip
        if strategy.qa.log.records:
            self.events.emit(Event("qa", now, now, strategy.qa.log.trace()))
        confident = [d.diagnosis for d in strategy.diagnoses if d.diagnosis is not None]
        if confident:
            self.result.model_diagnosis = confident[-1]

    def model_strategy(self, model: ModelSetup) -> ModelStrategy:
        localization = self.result.localization
        assert localization is not None

        def toolbox_for(context: RepairContext) -> Toolbox:
            return debugger_toolbox(
                session=self.session, runner=self.runner,
                codebase=CodeBase.from_workspace(self.workspace, context.sources),
                localization=localization, history=History(), python=self.python,
            )  # fmt: skip

        return ModelStrategy(
            model, toolbox_for, known_files=frozenset(self.sources), protected=self.config.protected,
            events=self.events,
        )  # fmt: skip

    # -- stages ---------------------------------------------------------------------------
    def check_interpreter(self) -> None:
        probe = self.session.run(
            [self.python, "-c", "import sys, pytest; print(sys.version.split()[0], pytest.__version__)"],
            timeout=60,
        )
        if probe.returncode == 127:
            said = probe.stderr.strip().splitlines()
            detail = f" ({said[-1]})" if said and "permission denied" in said[-1] else ""
            raise InterpreterError(f"Python interpreter not found: {self.python}{detail}")
        if not probe.ok:
            said = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else probe.returncode
            raise InterpreterError(
                f"{self.python} cannot import pytest; install pytest for it or pass --python "
                f"(it said: {said})"
            )

    def run_baseline(self) -> tuple[TestReport, CoverageMap | None]:
        with stage(self.events, "baseline", command=self.config.test_command) as info:
            baseline, coverage = self.runner.run(coverage_files=sorted(self.sources))
            info.update(
                status=baseline.status,
                failed=len(baseline.failing),
                passed=len(baseline.passing),
                coverage=coverage is not None,
            )
        self.result.metrics.baseline_s = baseline.duration_s
        if baseline.status == NOT_FOUND:
            # "selfheal: command not found: X" -> "test command not found: X"
            raise TestCommandError(f"test {baseline.message.removeprefix('selfheal: ')}")
        return baseline, coverage

    def flake_check(self, baseline: TestReport) -> tuple[str, ...]:
        flaky: set[str] = set()
        with stage(self.events, "flake_check", reruns=self.config.flake_reruns) as info:
            remaining = list(baseline.failing)
            for _ in range(self.config.flake_reruns):
                rerun, _ = self.runner.run(remaining)
                if not rerun.ran:
                    break
                newly = {t for t in remaining if rerun.outcomes.get(t) and not rerun.outcomes[t].failing}
                flaky |= newly
                remaining = [t for t in remaining if t not in newly]
            info.update(flaky=sorted(flaky))
        return tuple(sorted(flaky))

    def localize(
        self, baseline: TestReport, targets: list[str], coverage: CoverageMap | None
    ) -> Localization:
        with stage(self.events, "localize") as info:
            found = localize(
                failing=targets,
                passing=baseline.passing,
                outcomes=baseline.outcomes,
                coverage=coverage,
                sources=self.sources,
                root=str(self.session.root),
            )
            info.update(
                lines=len(found.lines),
                coverage=found.had_coverage,
                top=[f"{s.file}:{s.line}" for s in found.lines[:5]],
                targets=[f"{t.file}::{t.function}" for t in found.targets[:5]],
            )
        return found

    def start_screener(
        self, baseline: TestReport, targets: list[str], coverage: CoverageMap | None
    ) -> Screener:
        covering = self._covering_for_lines(
            [(s.file, s.line) for s in self.result.localization.top_lines()], coverage, baseline
        )
        collect = list(dict.fromkeys([*targets, *covering]))[:WORKER_COLLECT_LIMIT]
        with stage(self.events, "screening_worker", tests=len(collect)) as info:
            worker, why = ForkScreener.start(
                self.session, self.runner, collect, self.sources, startup_timeout=self.config.timeout
            )
            if worker is not None:
                sanity = worker.screen({}, collect, timeout=self._screen_timeout(collect, baseline))
                mismatch = [
                    t
                    for t in collect
                    if (sanity.outcomes.get(t) not in (None, "missing") or t in targets)
                    and (sanity.passed(t) != (t not in targets))
                ]
                if sanity.error or mismatch:
                    why = (
                        f"screening worker disagrees with the real run on {mismatch[:3]}"
                        if mismatch
                        else f"screening worker failed: {sanity.error}"
                    )
                    worker.close()
                    worker = None
                else:
                    self.baseline_messages = sanity.messages
            info.update(screener="fork-worker" if worker else "subprocess", note=why)
        if worker is None:
            self.result.notes.append(f"{why}; screening with one pytest process per candidate")
            # plain pytest runs report failures the way the baseline run did
            self.baseline_messages = {t: baseline.outcomes[t].message for t in targets}
            return SubprocessScreener(self.session, self.runner, self.sources)
        return worker

    # -- repair ---------------------------------------------------------------------------
    def repair_rounds(
        self, screener: Screener, baseline: TestReport, targets: list[str], coverage: CoverageMap | None
    ) -> None:
        config, result = self.config, self.result
        budget = Budget(config.max_candidates, config.max_minutes * 60)
        accepted: dict[str, str] = {}
        remaining = list(targets)
        hints = Hints(expected_exceptions=_expected_exceptions(baseline, targets))
        start = 1
        if self.resume is not None:
            start, accepted = self.resume.iteration, dict(self.resume.accepted)
            remaining = [t for t in self.resume.remaining if t in targets] or remaining
            if accepted:
                self.validate(
                    Candidate((), "resumed", "the fixes of the replayed rounds", "", 0, "", 1.0),
                    accepted,
                    baseline,
                )
                result.fixes = self.resume.fixes
        for round_number in range(start, config.max_iterations + 1):
            result.iterations = round_number
            if self.checkpoints is not None:
                self.checkpoints.save(Checkpoint(
                    iteration=round_number, repo=str(config.repo), base_sha=self.workspace.base_sha,
                    config=config_to_dict(config), accepted=dict(accepted), remaining=tuple(remaining),
                    fixes=result.fixes,
                ))  # fmt: skip
                self.events.emit(Event("checkpoint", time.time(), time.time(), {"iteration": round_number}))
            context = self._context(remaining, accepted, baseline, coverage, hints)
            screen = self._screen_fn(screener, baseline, context, accepted, coverage)
            with stage(
                self.events, "repair", round=round_number, strategy=self.strategy.name, targets=len(remaining)
            ) as info:
                outcome = self.strategy.repair(context, screen, budget)
                info.update(
                    tried=outcome.tried,
                    plausible=len(outcome.plausible),
                    partial=outcome.partial is not None,
                    stopped=outcome.stopped_because,
                )
            result.metrics.candidates_tried += outcome.tried
            for family, count in outcome.families_tried.items():
                result.families_tried[family] = result.families_tried.get(family, 0) + count
            result.ruled_out.extend(outcome.ruled_out)
            result.stopped_because = outcome.stopped_because

            winner = self.choose(outcome.plausible, accepted, baseline)
            if winner is not None:
                result.alternatives = [s.candidate for s in outcome.plausible if s is not winner]
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

    def _context(
        self,
        remaining: list[str],
        accepted: dict[str, str],
        baseline: TestReport,
        coverage: CoverageMap | None,
        hints: Hints | None = None,
    ) -> RepairContext:
        return RepairContext(
            sources={**self.sources, **accepted}, localization=self.result.localization,
            targets=tuple(remaining), passing=tuple(baseline.passing), coverage=coverage,
            durations={n: o.duration for n, o in baseline.outcomes.items()},
            hints=hints or Hints(expected_exceptions=_expected_exceptions(baseline, remaining)),
            seed=self.config.seed, baseline_messages=self.baseline_messages,
        )  # fmt: skip

    def _screen_fn(
        self,
        screener: Screener,
        baseline: TestReport,
        context: RepairContext,
        accepted: dict[str, str],
        coverage: CoverageMap | None,
    ):
        metrics = self.result.metrics

        def screen(candidate: Candidate) -> Screening:
            changes = {**accepted, **apply_edits(context.sources, candidate.edits)}
            lines = [
                (e.file, line) for e in candidate.edits for line in _edited_lines(context.sources[e.file], e)
            ]
            covering = self._covering_for_lines(lines, coverage, baseline)[:SCREEN_COVERING_TESTS]
            tests = [*context.targets, *covering]
            outcome: ScreenResult = screener.screen(
                changes,
                tests,
                self._screen_timeout(tests, baseline),
                test_timeout=self._screen_test_timeout(tests, baseline),
            )
            metrics.screened += 1
            metrics.screen_s += outcome.duration_s
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
            _emit_screen(self.events, screening, metrics.screened)
            return screening

        return screen

    def choose(
        self, plausible: list[Screening], accepted: dict[str, str], baseline: TestReport
    ) -> Screening | None:
        """The round's winner among candidates that screened as plausible. From one strategy,
        the first (in that strategy's ranking) that meets the verdict. From several, the first of
        each strategy that meets it compete: the verdict, then tests passed, then the smaller patch."""
        strategies = list(dict.fromkeys(s.candidate.strategy for s in plausible))
        before = _snapshot(self.result)
        held: list[tuple[tuple, Screening, dict]] = []
        validations = 0
        for strategy in strategies:
            for screening in [s for s in plausible if s.candidate.strategy == strategy]:
                if validations >= MAX_VALIDATIONS_PER_ROUND:
                    break
                validations += 1
                _restore(self.result, before)
                if self.validate(screening.candidate, accepted, baseline).holds:
                    after = self.result.after
                    passed = len(after.passing) if after is not None else 0
                    key = (-passed, _patch_size(self.result.patch), strategies.index(strategy))
                    held.append((key, screening, _snapshot(self.result)))
                    break
            if held and len(strategies) == 1:
                break
        if not held:
            return None  # a partial verdict of the last one stays, as the round's partial fix may use it
        key, winner, state = min(held, key=lambda h: h[0])
        _restore(self.result, state)
        if len(held) > 1:
            now = time.time()
            self.events.emit(Event("choose", now, now, {
                "winner": winner.candidate.description, "strategy": winner.candidate.strategy,
                "competitors": [
                    {"candidate": s.candidate.description, "strategy": s.candidate.strategy,
                     "passed": -k[0], "patch_lines": k[1]}
                    for k, s, _ in held
                ],
            }))  # fmt: skip
        return winner

    def validate(self, candidate: Candidate, accepted: dict[str, str], baseline: TestReport) -> Verdict:
        """A clean, real run of the full test command on the patched files, then the verdict."""
        current = {**self.base_texts_of(candidate), **accepted}
        changes = {**accepted, **apply_edits(current, candidate.edits)}
        changes = {p: t for p, t in changes.items() if t != self.base_text(p)}
        patch = self.workspace.diff(changes)
        with stage(self.events, "validate", candidate=candidate.description) as info:
            try:
                for path, text in changes.items():
                    self.session.write_file(path, text)
                after, _ = self.runner.run()
            except WorkspaceTrap as exc:
                info.update(status=NOT_HEALED, violations=[str(exc)])
                return self._refuse(candidate, f"the patch could not be put in place: {exc}")
            finally:
                for path in changes:
                    self.session.write_file(path, self.base_text(path), force=True)
            verdict = judge(
                baseline=baseline, flaky=set(self.result.flaky), after=after, changes=changes,
                base_texts={p: self.base_text(p) for p in changes}, patch=patch,
                protected=self.config.protected,
                applies=self.workspace.check_applies(patch),
                untargeted=frozenset(self.result.untargeted),
            )  # fmt: skip
            info.update(
                status=verdict.status,
                healed=len(verdict.healed),
                regressions=list(verdict.regressions[:10]),
                violations=verdict.violations,
            )
        self.result.metrics.validations += 1
        if verdict.status in (HEALED, PARTIAL):
            self.result.verdict = verdict
            self.result.after = after
            self.result.changes = changes
            self.result.base_texts = {p: self.base_text(p) for p in changes}
            self.result.patch = self.workspace.diff(changes, in_repo=True)
            self.result.fixes = (*self.result.fixes, candidate)
        else:
            self.result.rejections.append(Rejection(candidate, verdict))
        return verdict

    def _refuse(self, candidate: Candidate, why: str) -> Verdict:
        """A candidate that never reached the verdict's test run: refused with the reason."""
        verdict = Verdict(NOT_HEALED, (RuleResult(6, False, why),), (), (), (), ())
        self.result.metrics.validations += 1
        self.result.rejections.append(Rejection(candidate, verdict))
        return verdict

    # -- helpers --------------------------------------------------------------------------
    def base_text(self, path: str) -> str:
        """Base version of any file of the workspace (a candidate may touch non-source files)."""
        return self.sources[path] if path in self.sources else self.workspace.base_text(path)

    def base_texts_of(self, candidate: Candidate) -> dict[str, str]:
        return {**self.sources, **{e.file: self.base_text(e.file) for e in candidate.edits}}

    @staticmethod
    def _covering_for_lines(lines, coverage: CoverageMap | None, baseline: TestReport) -> list[str]:
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

    def _screen_test_timeout(self, tests: list[str], baseline: TestReport) -> float:
        """Per-test limit while screening: generous for tests that finished at baseline, short
        enough that a candidate which keeps a hanging test hanging costs little."""
        finished = [
            baseline.outcomes[t].duration
            for t in tests
            if t in baseline.outcomes and "per-test timeout" not in baseline.outcomes[t].message
        ]
        slowest = max(finished, default=1.0)
        return min(self.config.test_timeout, max(0.5, 10 * slowest + 0.5))

    def _screen_timeout(self, tests: list[str], baseline: TestReport) -> float:
        durations = [baseline.outcomes[t].duration for t in tests if t in baseline.outcomes]
        typical = statistics.median(durations) if durations else 1.0
        return min(self.config.test_timeout * max(1, len(tests)), 5.0 + 3 * sum(durations) + 10 * typical)


_KEPT = ("verdict", "after", "changes", "base_texts", "patch", "fixes", "tests", "test_files")


def _snapshot(result: HealResult) -> dict:
    return {name: getattr(result, name) for name in _KEPT}


def _restore(result: HealResult, kept: dict) -> None:
    for name, value in kept.items():
        setattr(result, name, value)


def _is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _patch_size(patch: str) -> int:
    return sum(1 for line in patch.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))


def _describe_diagnosis(result: HealResult) -> str:
    model = result.model_diagnosis
    if model is not None:
        return f"{model.root_cause}\nLocation: {model.file}:{model.line} in {model.function}"
    return "\n".join(f"{f.file}:{f.line} in {f.function}: {f.description}" for f in result.fixes)


def _emit_screen(events: EventSink, screening: Screening, count: int) -> None:
    now = time.time()
    events.emit(Event("screen", now, now, {
        "n": count,
        "candidate": screening.candidate.description,
        "family": screening.candidate.family,
        "fixed": len(screening.fixed),
        "still_failing": len(screening.still_failing),
        "broken": len(screening.broken),
        "plausible": screening.plausible,
        **({"error": screening.error} if screening.error else {}),
    }))  # fmt: skip


def _expected_exceptions(baseline: TestReport, targets: list[str]) -> tuple[str, ...]:
    found: list[str] = []
    for test in targets:
        outcome = baseline.outcomes.get(test)
        if outcome is None:
            continue
        for match in DID_NOT_RAISE.finditer(outcome.message + "\n" + outcome.details):
            name = match.group(1).rsplit(".", 1)[-1]
            if name not in found:
                found.append(name)
    return tuple(found)


def interpreter_folders(python: str) -> tuple[Path, ...]:
    """Host folders the test interpreter reads: its environment, the base installation behind
    a venv, and the coverage.py that selfheal lends interpreters which lack one."""
    folders = {Path(python).parent.parent, Path(os.path.realpath(python)).parent.parent}
    try:
        import coverage

        folders.add(Path(coverage.__file__).parent)
    except ImportError:
        pass
    return tuple(sorted(folders))


def resolve_python(requested: str | None, repo: Path, *, repo_venv: bool = True) -> str:
    """--python if given; else the repo's own .venv (with `repo_venv`); else the Python selfheal
    runs on."""
    if requested:
        found = requested if os.sep in requested else (shutil.which(requested) or requested)
        path = Path(found).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise InterpreterError(f"--python {shlex.quote(requested)}: no such executable")
        return str(path)
    # a .venv committed with the code is the repository's choice of interpreter (and of what the
    # sandbox shows the tests): only the user's own, untracked one is used
    repo_venv = repo_venv and not _tracked(repo, ".venv")
    for candidate in (repo / ".venv" / "bin" / "python", repo / ".venv" / "Scripts" / "python.exe"):
        if repo_venv and candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return sys.executable


def _tracked(repo: Path, path: str) -> bool:
    """Whether git tracks anything at `path` in `repo` (False outside a git repository)."""
    listed = git(repo, "ls-files", "-z", "--", path, check=False)
    return listed.returncode == 0 and bool(listed.stdout.strip(b"\0"))


def _edited_lines(text: str, edit: Edit) -> range:
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
