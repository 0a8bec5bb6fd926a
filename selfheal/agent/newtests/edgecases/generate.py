"""The embedded edge-case generator: tests for the behaviour a fix changed, found without a model.

    generate_edge_cases(session, python, path=..., function=..., base_text=..., patched_text=...,
                        existing_tests=...) -> EdgeCaseResult(cases, risks, probes, duration_s)

1. Read the function (signature, annotations, docstring, declared exceptions) from the patched
   text and what the existing tests call it with (`target`, `harvest`).
2. Plan at most `max_probes` inputs (`probes`): the tests' values and their neighbours,
   annotation-driven edges, seeded random combinations.
3. Run the probe script in the sandbox with the base text in the changed file, then with the
   patched text, then twice more on the patched text with other hash seeds for the chosen
   inputs only (a result that depends on hashing is not pinned). The file's previous content
   is put back whatever happens.
4. Pin up to `max_cases` inputs where the two versions differ to the patched result, add the
   docstring examples that hold, and report crashes of the patched code as open risks (`cases`).

Deterministic for a given input and seed: pools and plans are built in a fixed order from a
`random.Random(seed)`, the probes run with a fixed PYTHONHASHSEED, and ties break by probe id.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import selfheal.agent.newtests.edgecases.cases as casemod
from selfheal.agent.newtests.cases import TestCase, check_case_code
from selfheal.agent.newtests.edgecases.harvest import harvest
from selfheal.agent.newtests.edgecases.modules import import_lines, module_of, source_dirs_for
from selfheal.agent.newtests.edgecases.probes import Probe, plan
from selfheal.agent.newtests.edgecases.runner import ProbeJob, ProbeRun, run_probes
from selfheal.agent.newtests.edgecases.target import (
    Example,
    FunctionInfo,
    classes_in,
    docstring_examples,
    find_function,
)
from selfheal.agent.newtests.edgecases.values import ValueFactory
from selfheal.sandbox import Session
from selfheal.sandbox.exceptions import WorkspaceTrap

CONFIRM_FACTOR = 3  # inputs re-checked per case kept, so a dropped one has a replacement
CONFIRM_SEEDS = (1, 2)  # PYTHONHASHSEED of the re-check runs (the first two runs use 0)


@dataclass(frozen=True)
class EdgeCaseResult:
    cases: tuple[TestCase, ...]
    risks: tuple[str, ...]  # the patched code crashing or hanging on valid-looking inputs
    probes: int  # inputs tried on both versions
    duration_s: float
    notes: tuple[str, ...] = ()  # why there are fewer tests than one would hope, for the trace


@dataclass(frozen=True)
class _Runs:
    base: ProbeRun
    patched: ProbeRun
    confirms: tuple[ProbeRun, ...]
    others: tuple[ProbeRun, ...] = ()  # the other fixes the tests allow

    def stable(self, probe_id: int) -> bool:
        """The re-check runs saw what the patched run saw."""
        first = self.patched.outcomes[probe_id].key
        return all(
            (again := confirm.outcomes.get(probe_id)) is not None and again.key == first
            for confirm in self.confirms
        )


@dataclass(frozen=True)
class ProbePlan:
    """The inputs planned for one function, as a job the probe script runs on any version of it."""

    info: FunctionInfo
    probes: tuple[Probe, ...]
    examples: Mapping[int, Example]  # probe id -> docstring example
    job: ProbeJob
    dirs: tuple[str, ...]  # source folders on sys.path
    declared: frozenset[str]  # exceptions the function or its tests say it raises


def plan_probe_job(
    *,
    path: str,
    function: str,
    text: str,
    existing_tests: Mapping[str, str],
    module: str | None = None,
    source_dirs: Sequence[str] | None = None,
    seed: int = 0,
    max_probes: int = 200,
    call_timeout: float = 1.0,
) -> ProbePlan | str:
    """Inputs for `function` of `path` as `text` defines it, from its signature, annotations,
    docstring and what the tests call it with; a note saying why when there are none."""
    info = find_function(text, function)
    if info is None:
        return f"{function} is not a function or a method of a top-level class in {path}"
    if info.is_async:
        return f"{function} is a coroutine function; only plain functions are probed"
    evidence = harvest(existing_tests, info)
    dirs = source_dirs_for(path, source_dirs)
    file_module = module_of(path, dirs)
    rng = random.Random(seed)
    constructed = dict(evidence.constructed)
    factory = ValueFactory(classes_in(text), file_module, constructed, rng, evidence.passes_none)
    probes = plan(info, evidence, factory, rng, max_probes)
    examples = {len(probes) + i: e for i, e in enumerate(docstring_examples(info))}
    if not probes and not examples:
        return f"no inputs could be built for {function}: parameters of unknown types"
    job = ProbeJob(
        targets=import_lines(info.bind, evidence.bind_modules, module, file_module),
        bind=info.bind,
        member=info.name if info.owner else None,
        file=path,
        known_names=dict(evidence.known_names),
        modules=(file_module,),
        probes=tuple([p.job(info) for p in probes] + [_example_job(i, e) for i, e in examples.items()]),
        call_timeout=call_timeout,
    )
    return ProbePlan(info, tuple(probes), examples, job, dirs, info.declared | evidence.expected)


def generate_edge_cases(
    session: Session,
    python: str,
    *,
    path: str,
    function: str,
    base_text: str,
    patched_text: str,
    existing_tests: Mapping[str, str],
    module: str | None = None,
    source_dirs: Sequence[str] | None = None,
    timeout: float = 30.0,
    call_timeout: float = 1.0,
    seed: int = 0,
    max_probes: int = 200,
    max_cases: int = 5,
    alternatives: Sequence[str] = (),
) -> EdgeCaseResult:
    """Edge-case tests for `function` ("name" or "Class.method") of the source file `path`.

    `existing_tests`: test file path -> text. `module`: the import path the caller would use; the
    tests' own imports come first. `source_dirs`: folders on sys.path besides the root (default:
    `src` for a file under src/). `timeout`: seconds per probe run (four: base, patched, and two
    re-checks of the chosen inputs); `call_timeout`: seconds per call. Only `path` is swapped
    between its two texts; every other file stays as the workspace holds it. `alternatives`: the
    text of `path` under each other fix the tests allow; an input on which one of them gives
    another result is not pinned (which result is right, the tests do not say).
    """
    started = time.monotonic()

    def done(cases: Sequence[TestCase] = (), risks: Sequence[str] = (), probes: int = 0, notes=()):
        return EdgeCaseResult(tuple(cases), tuple(risks), probes, time.monotonic() - started, tuple(notes))

    planned = plan_probe_job(
        path=path, function=function, text=patched_text, existing_tests=existing_tests, module=module,
        source_dirs=source_dirs, seed=seed, max_probes=max_probes, call_timeout=call_timeout,
    )  # fmt: skip
    if isinstance(planned, str):
        return done(notes=[planned])
    info, probes, examples = planned.info, planned.probes, planned.examples
    job, dirs = planned.job, planned.dirs
    if session.read_file(path) is None:
        return done(notes=[f"{path} is not in the workspace"])
    declared = planned.declared

    def chosen(
        base: ProbeRun, patched: ProbeRun, others: Sequence[ProbeRun]
    ) -> tuple[list[Probe], list[int]]:
        found = casemod.changed(probes, base.outcomes, patched.outcomes, declared)
        found = [p for p in found if all(_agrees(other, patched, p.id) for other in others)]
        holding = [i for i in examples if casemod.example_usable(patched.outcomes[i])]
        return found[: max_cases * CONFIRM_FACTOR], holding

    def run(probe_job: ProbeJob, hash_seed: int) -> ProbeRun:
        return run_probes(session, python, probe_job, timeout=timeout, hash_seed=hash_seed, source_dirs=dirs)

    try:
        runs = _run_both(session, path, base_text, patched_text, job, run, chosen, alternatives)
    except WorkspaceTrap as exc:
        return done(probes=len(probes), notes=[f"no edge cases: {exc}"])
    if runs.patched.target is None:
        return done(probes=len(probes), notes=[_import_note(function, runs.patched, "patched")])
    candidates, holding = chosen(runs.base, runs.patched, runs.others)
    target = f"{path}::{function}"
    names = casemod.Names(info)
    cases = [
        casemod.pinned_case(p, runs.patched.outcomes[p.id], names.make(p.label), target)
        for p in [p for p in candidates if runs.stable(p.id)][:max_cases]
    ]
    cases += [
        casemod.example_case(examples[i], runs.patched.outcomes[i], names.make("example"), target, function)
        for i in holding
        if runs.stable(i)
    ]
    cases = [case for case in cases if check_case_code(case) is None]
    risks = casemod.risks(info, probes, runs.base.outcomes, runs.patched.outcomes, declared, call_timeout)
    risks += [r for i, e in examples.items() if (r := casemod.example_risk(e, runs.patched.outcomes[i]))]
    notes = [_import_note(function, runs.base, "base")] if runs.base.target is None else []
    if not cases:
        notes.append(_why_none(probes, runs.base, runs.patched))
    return done(cases, risks, len(probes), notes)


def _run_both(
    session: Session,
    path: str,
    base_text: str,
    patched_text: str,
    job: ProbeJob,
    run: Callable[[ProbeJob, int], ProbeRun],
    chosen: Callable[[ProbeRun, ProbeRun, Sequence[ProbeRun]], tuple[list[Probe], list[int]]],
    alternatives: Sequence[str] = (),
) -> _Runs:
    """The job on the base text, on the patched text, on each alternative text, and the chosen
    inputs again on the patched text under other hash seeds; the file's previous content is put
    back whatever happens."""
    original = session.read_file(path)
    if original is None:
        raise WorkspaceTrap(f"{path} is no longer a plain file of the workspace")
    try:
        session.write_file(path, base_text)
        base = run(job, 0)
        others = []
        for text in alternatives if base.target is not None else ():
            session.write_file(path, text)
            others.append(run(job, 0))
        session.write_file(path, patched_text)
        patched = run(job, 0)
        confirms: tuple[ProbeRun, ...] = ()
        if patched.target is not None:
            candidates, holding = chosen(base, patched, others)
            recheck = {p.id for p in candidates} | set(holding)
            if recheck:
                subset = replace(job, probes=tuple(p for p in job.probes if p["id"] in recheck))
                # a result whose order comes from a set of strings differs under another seed
                confirms = tuple(run(subset, seed) for seed in CONFIRM_SEEDS)
    finally:
        session.write_file(path, original, force=True)
    return _Runs(base, patched, confirms, tuple(others))


def _agrees(other: ProbeRun, patched: ProbeRun, probe_id: int) -> bool:
    """Another fix gives what the patch gives on this input (an alternative that could not be
    imported says nothing either way, so nothing it might give is pinned)."""
    if other.target is None:
        return False
    mine, theirs = patched.outcomes[probe_id].key, other.outcomes.get(probe_id)
    return theirs is not None and theirs.key == mine


def _example_job(probe_id: int, example: Example) -> dict[str, object]:
    return {"id": probe_id, "example": example.expr, "want": example.want, "raises": example.raises}


def _import_note(function: str, run: ProbeRun, version: str) -> str:
    reasons = "; ".join(run.errors[:3]) or "no import line reached the file"
    return f"{function} could not be imported on the {version} code: {reasons}"


def _why_none(probes: list[Probe], base: ProbeRun, patched: ProbeRun) -> str:
    differing = sum(
        1
        for p in probes
        if base.outcomes[p.id].key is not None
        and patched.outcomes[p.id].key is not None
        and base.outcomes[p.id].key != patched.outcomes[p.id].key
    )
    if not differing:
        return f"the base and the patched code agree on all {len(probes)} generated inputs"
    return f"{differing} inputs behave differently, but none gives a value a test can state"
