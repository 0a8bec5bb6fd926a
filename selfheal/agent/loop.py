"""One heal, top to bottom: baseline, flake check, localize, repair rounds, new tests, verdict.

    heal(config, sandbox, events) -> HealResult

The workspace is a copy; the sandbox session is opened once and closed at the end whatever
happens. Problems of the repo itself (tests that cannot run) end in a result with status
"error". The heal keeps to its budget (--max-minutes) itself: when it runs out, or a bot that is
stopping asks, the result says what was tried (`HealStopped`); SIGTERM or Ctrl-C does the same
and re-raises as `HealInterrupted` carrying that result, so the caller writes its report before
it exits. Problems of the request (bad path, missing interpreter, unknown command) raise
`ConfigError` before anything is run. The steps live in `prepare` (before the repair), `rounds`
(the repair), and after a patch holds `fixchoice` (which plausible patch ships), `postrepair`
(its new tests) and `modelrounds` (the model's round and critic); they share one `HealState`.
"""

from __future__ import annotations

import threading
import time

from selfheal.agent.config import HealConfig
from selfheal.agent.events import EventSink, count, stage
from selfheal.agent.exceptions import ConfigError, HealInterrupted, HealStopped
from selfheal.agent.fixchoice import FixChoice
from selfheal.agent.localize.spectrum import source_files
from selfheal.agent.model.strategy import ModelSetup
from selfheal.agent.modelrecord import record_model
from selfheal.agent.modelrounds import ModelRounds
from selfheal.agent.postrepair import AfterRepair
from selfheal.agent.prepare import (
    check_interpreter,
    flake_check,
    localize_failures,
    model_strategy,
    recall_memory,
    run_baseline,
    start_screener,
    trace_failures,
)
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.repair.strategy import RepairStrategy
from selfheal.agent.report.checkpoints import Checkpoint
from selfheal.agent.report.confidence import code_lines
from selfheal.agent.report.result import ERROR, HEALED, NOT_HEALED, NOTHING_TO_HEAL, PARTIAL, HealResult
from selfheal.agent.rounds import CheckpointStore, RepairRounds
from selfheal.agent.run.clock import HealClock
from selfheal.agent.run.interpreter import interpreter_folders, resolve_python
from selfheal.agent.run.targets import matches_target
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.agent.state import HealState
from selfheal.sandbox import Sandbox, SandboxInfo, Session
from selfheal.sandbox.addresses import without_addresses
from selfheal.sandbox.exceptions import LimitExceeded, SetupFailed, WorkspaceTrap


def heal(
    config: HealConfig,
    sandbox: Sandbox,
    events: EventSink,
    strategy: RepairStrategy | None = None,
    model: ModelSetup | None = None,
    checkpoints: CheckpointStore | None = None,
    resume: Checkpoint | None = None,
    stop: threading.Event | None = None,
) -> HealResult:
    """`checkpoints`: where each round's starting state is saved; `resume`: a saved state to
    start from instead of round 1 (`selfheal replay`); `stop`: set by a caller that needs the
    heal to end early (it ends at its next test run or screening, with its result)."""
    started = time.monotonic()
    clock = HealClock(config.max_minutes * 60, stop)
    interrupted: KeyboardInterrupt | None = None
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
                # the trace keeps pip's words whole; the error is published, its addresses are not
                result = _setup_failed(config, workspace, without_addresses(str(exc)))
                result.metrics.wall_s = time.monotonic() - started
                return result
            info.update(
                isolation=session.info.isolation, plain=session.info.plain(), python=session.python or python
            )
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
            run.state.runner.clock = clock
            try:
                result = run.execute()
            except (LimitExceeded, WorkspaceTrap) as exc:
                # the tests outgrew the sandbox or broke selfheal's hold on the workspace: what
                # ran so far stands in the report, with the reason the heal could not go on
                result = run.state.finish(ERROR, error=f"the heal stopped: {exc}")
            except HealStopped as exc:
                result = run.stopped(str(exc))
            except KeyboardInterrupt as exc:  # SIGTERM (the CLI raises it as one) or Ctrl-C
                interrupted = exc
                result = run.stopped(f"the heal was {HealInterrupted.describe(exc)}")
        finally:
            session.close()
    finally:
        if not config.keep_workspace:
            workspace.cleanup()
    result.metrics.wall_s = time.monotonic() - started
    if interrupted is not None:
        raise HealInterrupted(result, interrupted) from interrupted
    return result


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
        if resume is not None and resume.base_sha != workspace.base_sha:
            raise ConfigError(
                f"the checkpoint is of commit {resume.base_sha[:12]}, the repository is at "
                f"{workspace.base_sha[:12]}: replay needs the commit the run healed"
            )
        self.model, self.checkpoints, self.resume = model, checkpoints, resume
        python = python or resolve_python(
            config.python, workspace.origin.path, repo_venv=not config.require_contained
        )
        runner = TestRunner(
            session, TestCommand.parse(config.test_command, python, workspace.root), python,
            timeout=config.timeout, test_timeout=config.test_timeout,
            source_dirs=("src",) if any(f.startswith("src/") for f in workspace.files) else (),
        )  # fmt: skip
        result = HealResult(
            status=ERROR, repo=str(workspace.origin.path), base_sha=workspace.base_sha,
            test_command=config.test_command, provider=config.provider, sandbox=session.info,
            python=python, apply_root=str(workspace.toplevel), project_dir=workspace.origin.subdir,
        )  # fmt: skip
        result.notes.extend(config.extra.get("setting_notes", ()))
        if workspace.origin.dirty:
            result.notes.append(
                "the working tree differs from HEAD; the patch is against the files as they are on disk"
            )
        if not workspace.origin.is_git:
            result.notes.append("not a git repository: the patch is against a snapshot of the directory")
        # a symbolic link is no source file: its "text" is where it points, and a repair of it
        # would write through it (the user's directory, which no sandboxed command touched)
        files = [f for f in workspace.files if not (workspace.origin.path / f).is_symlink()]
        sources = workspace.base_texts(source_files(files, config.protected, config.source))
        result.metrics.source_lines = code_lines(sources)
        self.state = HealState(config, workspace, session, events, python, runner, sources, result, strategy)
        self.rounds = RepairRounds(self.state)
        self.choice = FixChoice(self.state, self.rounds)
        self.after = AfterRepair(self.state, self.rounds, self.choice)
        self.model_rounds = ModelRounds(self.after)

    def execute(self) -> HealResult:
        state, result, after, model_rounds = self.state, self.state.result, self.after, self.model_rounds
        check_interpreter(state)
        baseline, coverage = run_baseline(state)
        result.baseline = baseline
        if not baseline.ran:
            return state.finish(ERROR, error=baseline.message)
        if not baseline.failing:
            return state.finish(NOTHING_TO_HEAL)
        result.flaky = flake_check(state, baseline)
        targets = [t for t in baseline.failing if t not in result.flaky]
        if not targets:
            result.notes.append("every failing test passed when re-run: they are flaky, not broken")
            return state.finish(NOTHING_TO_HEAL)
        if state.config.targets:
            targets = self.chosen_targets(targets)
            if not targets:
                return state.finish(NOTHING_TO_HEAL)
        coverage = trace_failures(state, baseline, targets, traced=coverage)
        result.localization = localize_failures(state, baseline, targets, coverage)
        recall_memory(state, baseline, targets)
        if self.model is not None:
            state.strategy = model_strategy(state, self.model)
        if not result.localization.lines:
            return state.finish(
                NOT_HEALED,
                error="no suspicious line in project source: the "
                "failing tests execute no source file selfheal may change",
            )
        new_tests = after.new_tests(targets)
        state.model_step(
            lambda: new_tests.spec_first(result.localization, state.sources, after.test_sources(targets))
        )
        screener = start_screener(state, baseline, targets, coverage)
        try:
            self.rounds.run(
                screener, baseline, targets, coverage, resume=self.resume, checkpoints=self.checkpoints
            )
            if result.verdict is not None and result.changes:
                if result.verdict.holds:
                    self.choice.compare_fixes(baseline)
                after.prove_new_tests(new_tests, targets)
                state.model_step(lambda: model_rounds.qa_round(baseline, coverage, new_tests, targets))
                state.model_step(
                    lambda: model_rounds.critique(screener, baseline, targets, coverage, new_tests)
                )
                after.review_overfit(targets)
        finally:
            screener.close()
            result.metrics.screener = screener.name
            if state.model is not None:
                record_model(state, state.model)
        return state.finish(result.verdict.status if result.verdict else NOT_HEALED)

    def stopped(self, reason: str) -> HealResult:
        """The result of a heal that had to end early: partial when a verified fix stands (the
        steps after it did not finish), else not healed; the trace and metrics say what was tried."""
        state, result = self.state, self.state.result
        verdict = result.verdict
        status = PARTIAL if verdict is not None and verdict.status in (HEALED, PARTIAL) else NOT_HEALED
        # every round's screenings: the count each round's progress line ends with ("in all")
        tried = count(result.metrics.screened, "candidate")
        return state.finish(status, error=f"{reason}; the report holds what was tried ({tried} screened)")

    def chosen_targets(self, failing: list[str]) -> list[str]:
        """The failing tests the caller's targets name; the others are left alone, and said so."""
        result, named = self.state.result, self.state.config.targets
        chosen = [t for t in failing if matches_target(t, named)]
        result.untargeted = tuple(t for t in failing if t not in chosen)
        if not chosen:
            result.notes.append(
                f"none of the {len(failing)} failing tests matches the targets {', '.join(named)}"
            )
        elif result.untargeted:
            result.notes.append(f"{len(result.untargeted)} failing tests outside the targets were left alone")
        return chosen


def _setup_failed(config: HealConfig, workspace: Workspace, error: str) -> HealResult:
    return HealResult(
        status=ERROR, repo=str(workspace.origin.path), base_sha=workspace.base_sha,
        test_command=config.test_command, provider=config.provider,
        sandbox=SandboxInfo("docker", False, "container; the dependency setup failed"),
        error=error, apply_root=str(workspace.toplevel), project_dir=workspace.origin.subdir,
    )  # fmt: skip
