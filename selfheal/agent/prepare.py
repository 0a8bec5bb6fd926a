"""Before the repair: the interpreter checked, the baseline run, the flake check, localization,
the screening worker, the recall of earlier heals, and the model's strategy when a model repairs.

Each step reads and writes the `HealState` it is given; none decides the heal's status.
"""

from __future__ import annotations

import time

from selfheal.agent.events import count, stage
from selfheal.agent.exceptions import HealError, InterpreterError, TestCommandError
from selfheal.agent.localize.codeindex import CodeBase
from selfheal.agent.localize.excerpt import suspect_excerpt
from selfheal.agent.localize.spectrum import Localization, localize
from selfheal.agent.localize.tracing import TracePlan, passing_to_trace, sources_of_tests, suspect_names
from selfheal.agent.model.history import History
from selfheal.agent.model.strategy import ModelSetup, ModelStrategy
from selfheal.agent.model.toolbox import Toolbox
from selfheal.agent.model.tools import debugger_toolbox
from selfheal.agent.repair.strategy import RepairContext
from selfheal.agent.report.memory import memory_store
from selfheal.agent.report.recall import lessons_of, order_of, query_of, recall
from selfheal.agent.rounds import changed_paths, covering_for_lines, screen_timeout
from selfheal.agent.run.freshtree import FreshTree
from selfheal.agent.run.junit import error_type
from selfheal.agent.run.screen import (
    ForkScreener,
    OrderedScreener,
    Screener,
    ScreenResult,
    SubprocessScreener,
)
from selfheal.agent.run.testrun import NOT_FOUND, CoverageMap, TestReport
from selfheal.agent.run.timelimits import TimeLimits, hang_probe, load_factor, sibling_probe, timed_out
from selfheal.agent.run.workspace import WorkspaceError
from selfheal.agent.state import HealState
from selfheal.agent.verdict import collected_test_files

WORKER_COLLECT_LIMIT = 400


# Whether the interpreter starts and can find pytest. Finding, not importing: importing pytest
# costs a fifth of a CPU-second in every heal, and a pytest that is found but broken fails the
# baseline run with its own traceback, which says more than this check could.
NO_PYTEST = 3  # the check's exit code where the interpreter starts but has no pytest
FINDS_PYTEST = (
    f"import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('pytest') else {NO_PYTEST})"
)


def check_interpreter(state: HealState) -> None:
    probe = state.session.run([state.python, "-c", FINDS_PYTEST], timeout=60)
    if probe.returncode == 127:
        said = probe.stderr.strip().splitlines()
        detail = f" ({said[-1]})" if said and "permission denied" in said[-1] else ""
        raise InterpreterError(f"Python interpreter not found: {state.python}{detail}")
    if probe.returncode == NO_PYTEST:
        raise InterpreterError(
            f"{state.python} has no pytest; install pytest for it or pass --python with one that has"
        )
    if not probe.ok:
        said = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else probe.returncode
        raise InterpreterError(f"{state.python} does not start (it said: {said})")


def run_baseline(state: HealState, plan: TracePlan | None = None) -> tuple[TestReport, CoverageMap | None]:
    """The suite as it is, each test under the hang probe: the tests that hang are stopped in
    seconds and named, and the durations of the others time every later run. A small suite runs
    under the tracer; a larger one without, its coverage taken afterwards where it is needed
    (`trace_failures`)."""
    plan = plan or TracePlan()
    traced = plan.traces_baseline(state.existing_test_texts())
    load = load_factor()
    probe = hang_probe(state.config.test_timeout, load)
    with stage(
        state.events, "baseline", command=state.config.test_command, test_limit_s=round(probe, 1)
    ) as info:
        before = state.runner.fingerprint()
        state.tree = FreshTree.for_workspace(state.session, state.python, state.workspace, before)
        baseline, coverage = state.runner.run(
            coverage_files=sorted(state.sources) if traced else None, test_timeout=probe,
            sibling_probe=sibling_probe(load),
        )  # fmt: skip
        state.suite_writes = frozenset(changed_paths(before, state.runner.fingerprint()))
        limits = TimeLimits.from_baseline(
            baseline.outcomes, baseline.duration_s, ceiling=state.config.test_timeout, probe=probe, load=load
        )
        state.runner.limits = limits
        info.update(
            status=baseline.status,
            failed=len(baseline.failing),
            passed=len(baseline.passing),
            coverage=coverage is not None,
            hung=sorted(limits.hung),
        )
    if limits.hung:
        names = ", ".join(sorted(limits.hung)[:10]) + (" ..." if len(limits.hung) > 10 else "")
        state.result.notes.append(
            f"{count(len(limits.hung), 'test')} hung at baseline, stopped after {probe:.1f}s (a test "
            f"still running then counts as hanging; once a case of a test function hung, its later "
            f"cases after {sibling_probe(load):.1f}s): {names}"
        )
    state.result.metrics.baseline_s = baseline.duration_s
    # A file pytest collected tests from is a test file, whatever its name says (a root-level
    # `tests.py`, a folder the ini names): no repair may edit it, however suspicious its lines.
    for path in sorted(collected_test_files(baseline.outcomes) & set(state.sources)):
        del state.sources[path]
        state.result.notes.append(
            f"{path} holds tests the suite runs: treated as a test file, never repaired"
        )
    if baseline.status == NOT_FOUND:
        # "selfheal: command not found: X" -> "test command not found: X"
        raise TestCommandError(f"test {baseline.message.removeprefix('selfheal: ')}")
    return baseline, coverage


def trace_failures(
    state: HealState,
    baseline: TestReport,
    targets: list[str],
    plan: TracePlan | None = None,
    traced: CoverageMap | None = None,
) -> CoverageMap | None:
    """Per-test coverage where the spectrum needs it (localize/tracing.py): what the baseline
    traced (`traced`, a small suite) as it is; else a suite of a few hundred tests whole, in one
    run; a large one in two, the failing tests over every source file, then the passing tests
    most likely to run the suspects, over the files the failing tests ran."""
    if traced is not None:
        return traced
    plan = plan or TracePlan()
    passing = baseline.passing
    files = sorted(state.sources)
    with stage(state.events, "coverage", passing=len(passing)) as info:
        if plan.traces_whole_suite(len(passing)):
            _, coverage = state.runner.run(coverage_files=files)
            info.update(traced_failing=len(targets), traced_passing=len(passing), whole_suite=True)
            return coverage
        _, failing = state.runner.run(list(targets), coverage_files=files)
        if failing is None:
            info.update(traced_failing=0, traced_passing=0, whole_suite=False)
            return None
        suspects = localize(
            failing=targets, passing=[], outcomes=baseline.outcomes, coverage=failing,
            sources=state.sources, root=str(state.session.root),
        )  # fmt: skip
        names = suspect_names(t.function for t in suspects.targets)
        chosen = passing_to_trace(
            failing=targets, passing=passing,
            durations={n: o.duration for n, o in baseline.outcomes.items()},
            names=names, sources=sources_of_tests(_test_files(state, passing)), plan=plan,
        )  # fmt: skip
        ran = sorted({f for lines in failing.tests.values() for f in lines if lines[f]})
        covered = None
        if chosen and ran:
            _, covered = state.runner.run(chosen, coverage_files=ran)
        info.update(
            traced_failing=len(targets), traced_passing=len(chosen), whole_suite=False,
            suspects=names[:10], files=ran[:10],
        )  # fmt: skip
    return CoverageMap({**(covered.tests if covered else {}), **failing.tests})


def _test_files(state: HealState, tests: list[str]) -> dict[str, str]:
    """The text of each file the given tests live in, at the base."""
    texts: dict[str, str] = {}
    for path in dict.fromkeys(t.partition("::")[0] for t in tests):
        try:
            texts[path] = state.workspace.base_text(path)
        except (WorkspaceError, UnicodeDecodeError):
            continue
    return texts


def flake_check(state: HealState, baseline: TestReport) -> tuple[str, ...]:
    flaky: set[str] = set()
    with stage(state.events, "flake_check", reruns=state.config.flake_reruns) as info:
        # a test that hung is not re-run: another hang would cost another probe, for a verdict
        # (a hang is a bug) that a re-run rarely changes
        hung = state.runner.limits.hung if state.runner.limits else frozenset()
        remaining = [t for t in baseline.failing if t not in hung]
        for _ in range(state.config.flake_reruns if remaining else 0):
            rerun, _ = state.runner.run(remaining)
            if not rerun.ran:
                break
            newly = {t for t in remaining if rerun.outcomes.get(t) and not rerun.outcomes[t].failing}
            flaky |= newly
            remaining = [t for t in remaining if t not in newly]
        info.update(flaky=sorted(flaky))
    return tuple(sorted(flaky))


def localize_failures(
    state: HealState, baseline: TestReport, targets: list[str], coverage: CoverageMap | None
) -> Localization:
    with stage(state.events, "localize") as info:
        found = localize(
            failing=targets,
            passing=baseline.passing,
            outcomes=baseline.outcomes,
            coverage=coverage,
            sources=state.sources,
            root=str(state.session.root),
        )
        info.update(
            lines=len(found.lines),
            coverage=found.had_coverage,
            top=[f"{s.file}:{s.line}" for s in found.lines[:5]],
            targets=[f"{t.file}::{t.function}" for t in found.targets[:5]],
            excerpt=suspect_excerpt(found, state.sources),  # for report.html's heat strip
        )
    return found


def start_screener(
    state: HealState, baseline: TestReport, targets: list[str], coverage: CoverageMap | None
) -> Screener:
    """The fork worker when it agrees with the baseline run on the tests it collected, else a
    pytest process per candidate. Tests on which the worker disagrees with the real run (their
    outcome, or for failing tests the exception) because they depend on what earlier tests left
    behind are screened in a fresh process after those tests (`OrderedScreener`), when that
    reproduces the real outcome."""
    covering = covering_for_lines(
        [(s.file, s.line) for s in state.result.localization.top_lines()], coverage, baseline
    )
    collect = list(dict.fromkeys([*targets, *covering]))[:WORKER_COLLECT_LIMIT]
    fresh = SubprocessScreener(state.session, state.runner, state.sources)
    with stage(state.events, "screening_worker", tests=len(collect)) as info:
        worker, why = ForkScreener.start(
            state.session, state.runner, collect, state.sources, startup_timeout=state.config.timeout
        )
        screener: Screener | None = worker
        if worker is not None:
            sanity = worker.screen(
                {}, collect, timeout=screen_timeout(state.config.test_timeout, collect, baseline)
            )
            mismatch = [
                t
                for t in collect
                if (sanity.outcomes.get(t) not in (None, "missing") or t in targets)
                and (sanity.passed(t) != (t not in targets))
            ]
            other_error = [t for t in targets if t not in mismatch and not _same_failure(sanity, baseline, t)]
            if sanity.error:
                why = f"screening worker failed: {sanity.error}"
                worker.close()
                screener = None
            elif mismatch or other_error:
                prefixes, took = ordered_prefixes(state, baseline, [*mismatch, *other_error])
                unresolved = [t for t in mismatch if t not in prefixes]
                info.update(disagreements=len(mismatch) + len(other_error), ordered=sorted(prefixes))
                if unresolved:
                    why = f"screening worker disagrees with the real run on {unresolved[:3]}"
                    worker.close()
                    screener = None
                else:
                    state.baseline_messages = sanity.messages
                    if prefixes:
                        screener = _ordered(worker, fresh, prefixes, baseline, took)
                        why = (
                            f"{len(prefixes)} test(s) depend on what earlier tests leave behind: "
                            "screened in a fresh process after them"
                        )
            else:
                state.baseline_messages = sanity.messages
        info.update(screener=screener.name if screener else "subprocess", note=why)
    if screener is None:
        state.result.notes.append(f"{why}; screening with one pytest process per candidate")
        # plain pytest runs report failures the way the baseline run did
        state.baseline_messages = {t: baseline.outcomes[t].message for t in targets}
        return fresh
    if isinstance(screener, OrderedScreener):
        state.result.notes.append(why)
        state.baseline_messages.update({t: baseline.outcomes[t].message for t in screener.prefixes})
    return screener


def ordered_prefixes(
    state: HealState, baseline: TestReport, tests: list[str]
) -> tuple[dict[str, tuple[str, ...]], float]:
    """For each test, the tests that ran before it in the real run and that it needs to give the
    real run's outcome again in a fresh process, the shortest that does: none (a fresh process
    alone may be enough), those of its own class, of its own file, else all of them. The prefix
    runs with every screening of the test, so a short one keeps a candidate's cost from growing
    with the suite. Tests that no prefix brings back to the real outcome are left out. Also the
    seconds the longest of those fresh runs took: what one costs on this machine, start-up
    included."""
    order = list(baseline.outcomes)
    rank = {nodeid: index for index, nodeid in enumerate(order)}
    wanted = [t for t in dict.fromkeys(tests) if t in rank]

    def alone(test: str) -> tuple[str, ...]:
        return ()

    def own_class(test: str) -> tuple[str, ...]:
        scope = test.rpartition("::")[0]
        if "::" not in scope:  # a module-level test: its class is its file, the next step
            return ()
        return tuple(n for n in order[: rank[test]] if n.rpartition("::")[0] == scope)

    def own_file(test: str) -> tuple[str, ...]:
        file = test.partition("::")[0]
        return tuple(n for n in order[: rank[test]] if n.partition("::")[0] == file)

    found: dict[str, tuple[str, ...]] = {}
    tried: dict[str, tuple[str, ...]] = {}
    took = 0.0
    for prefix_of in (alone, own_class, own_file, lambda test: tuple(order[: rank[test]])):
        pending = [t for t in wanted if t not in found]
        if not pending:
            break
        prefixes = {t: prefix_of(t) for t in pending}
        if prefixes == tried:
            continue  # the same prefixes as the step before (a file of one class): no new run
        tried = prefixes
        run = sorted({n for t in pending for n in (*prefixes[t], t)}, key=rank.__getitem__)
        tests_timeout = screen_timeout(state.config.test_timeout, run, baseline)
        started = time.monotonic()
        report, _ = state.runner.run(run, timeout=max(tests_timeout, state.config.timeout))
        took = max(took, time.monotonic() - started)
        for test in pending:
            outcome = report.outcomes.get(test)
            if outcome is not None and _same_outcome(outcome.outcome, outcome.message, baseline, test):
                found[test] = prefixes[test]
    return found, took


def _same_failure(sanity: ScreenResult, baseline: TestReport, test: str) -> bool:
    return _same_outcome(sanity.outcomes.get(test), sanity.messages.get(test, ""), baseline, test)


def _same_outcome(outcome: str | None, message: str, baseline: TestReport, test: str) -> bool:
    """The same outcome as the real run's, and for a failure the same exception."""
    real = baseline.outcomes[test]
    if outcome == "timeout" and timed_out(real):
        return True  # it hung in the real run and hangs here: stopped by a limit both times
    if outcome is None or (outcome == "passed") != (real.outcome == "passed"):
        return False
    return outcome == "passed" or error_type(message, "failed") == error_type(real.message, "failed")


def _ordered(
    worker: Screener, fresh: Screener, prefixes: dict[str, tuple[str, ...]], baseline: TestReport, took: float
) -> OrderedScreener:
    durations = {nodeid: outcome.duration for nodeid, outcome in baseline.outcomes.items()}
    # a fresh process is given at least three times what the calibration run took, start-up and all
    return OrderedScreener(worker, fresh, prefixes, list(baseline.outcomes), durations, min_timeout=3 * took)


def model_strategy(state: HealState, model: ModelSetup) -> ModelStrategy:
    localization = state.result.localization
    assert localization is not None

    def toolbox_for(context: RepairContext) -> Toolbox:
        return debugger_toolbox(
            session=state.session, runner=state.runner,
            codebase=CodeBase.from_workspace(state.workspace, context.sources),
            localization=localization, history=History(), python=state.python,
        )  # fmt: skip

    recalled = state.result.recalled if state.config.memory_to_model else ()
    if state.result.recalled and not recalled:
        state.result.notes.append(
            "the recalled memory records are unsigned (no memory-key): they ordered the search, and no "
            "model was shown them"
        )
    return ModelStrategy(
        model, toolbox_for, known_files=frozenset(state.sources), protected=state.config.protected,
        events=state.events, recalled_lessons=tuple(lessons_of(recalled)),
    )  # fmt: skip


def recall_memory(state: HealState, baseline: TestReport, targets: list[str]) -> None:
    """The earlier heals most like this failure: lessons for a model, a reorder for the search.
    A store that cannot be read is a note, not a failed heal."""
    result = state.result
    if not state.config.memory:
        return
    store = memory_store(state.config)
    with stage(state.events, "recall", store=str(store.path)) as info:
        try:
            records = store.records()
        except HealError as exc:
            result.notes.append(f"memory not recalled: {exc}")
            info.update(error=str(exc))
            return
        result.memory = str(state.config.extra.get("memory_store", "local"))  # or the GitHub branch
        found = recall(records, query_of(baseline, targets, result.localization))
        result.recalled = tuple(found)
        state.recalled_order = order_of(found)
        info.update(
            records=len(records),
            recalled=[{"id": r.record.id, "score": r.score, "weight": r.weight} for r in found],
        )
