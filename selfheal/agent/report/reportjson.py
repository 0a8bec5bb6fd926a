"""report.json: the shared contract (`contracts/heal-report.schema.json`) every consumer reads, and
selfheal's own (`contracts/heal-report.selfheal.schema.json`), which describes every field written
here and allows no other: a field added or removed here, or a value added to one of its
enumerations, goes into that schema too, and raises SELFHEAL_SCHEMA_VERSION."""

from __future__ import annotations

from typing import Any

from selfheal.agent.report.confidence import Confidence, assess
from selfheal.agent.report.lessons import build_lessons, meaning, what_changed
from selfheal.agent.report.recall import helped, lesson_of
from selfheal.agent.report.result import HealResult

SCHEMA_VERSION = 1  # the shared contract's, which pins it
SELFHEAL_SCHEMA_VERSION = 3  # selfheal's schema of the whole report (2: no test_check risk; 1: two sections)
LOCALIZED_LINES = 60  # the most suspicious lines, for the HTML report's heat strip
MEMORY_VERSION = 1  # of the report's `memory` object (an extension the contract's schema allows)


MAX_REJECTED_SHOWN = 50  # a search may be refused many times; report.json stays readable


def diagnosis(result: HealResult, confidence: Confidence | None) -> dict[str, Any] | None:
    """Where the fix went and what kind of bug it implies, by the model's debugger when its edit was
    shipped, else by the embedded engine. Its confidence is the heal's (agent/report/confidence.py):
    the probability that the shipped patch is right."""
    if not result.fixes:
        return None
    probability = confidence.probability if confidence is not None else None
    doubt = _doubt(result)
    model = result.model_diagnosis
    if model is not None and result.fixes[0].strategy == "generator":
        return {
            "root_cause": f"{model.root_cause} {doubt}".strip(),
            "location": f"{model.file}:{model.line}",
            "confidence": probability,
            "method": f"ReAct debugger ({model.function}); the repair came from the model's edit",
        }
    fix = result.fixes[0]
    if fix.strategy == "generator-sbfl":
        return {
            "root_cause": f"In `{fix.function}` ({fix.file}:{fix.line}): {fix.description} {doubt}".strip(),
            "location": f"{fix.file}:{fix.line}",
            "confidence": probability,
            "method": "the model's repair of the most suspicious function by spectrum analysis, "
            "written without the debugger's diagnosis",
        }
    # the family says what a right patch of its kind means; with a doubt, this one may not be right
    opening, change = ("The patch would mean that in", "its change") if doubt else ("In", "the fix")
    causes = [
        f"{opening} `{f.function}` ({f.file}:{f.line}) {meaning(f)}; {change}: {what_changed(f)}."
        for f in result.fixes
    ]
    return {
        "root_cause": " ".join([*causes, doubt]).strip(),
        "location": ", ".join(f"{f.file}:{f.line}" for f in result.fixes),
        "confidence": probability,
        "method": "spectrum-based localization + mutation search (no model)",
    }


def _doubt(result: HealResult) -> str:
    """Why the shipped patch says nothing of what the bug was: it only skips the failing path, or
    it changes the check a failing test asserts with rather than the code checked. Empty otherwise:
    the other overfit risks touch the computation itself, and the report lists them on their own."""
    reasons = []
    if result.bypass:
        where = ", ".join(f"`{f}`" for f in result.bypass)
        reasons.append(f"it only skips the failing path in {where}, so the tests no longer run it")
    reasons += [str(risk) for risk in result.overfit_risks if risk.changes_the_check]
    return f"Not established: {'; '.join(reasons)}." if reasons else ""


def new_tests(result: HealResult) -> list[dict[str, Any]]:
    """The shipped tests with their proof, where each came from and what it checks."""
    if result.verdict is None:
        return []
    about = {(p.case.name, p.path): p.case for p in result.tests.shipped}
    prefix = f"{result.project_dir}/" if result.project_dir else ""
    entries = []
    for evidence in result.verdict.new_tests:
        case = about.get((evidence.name, evidence.path.removeprefix(prefix)))
        entry = evidence.as_dict()
        if case is not None:
            entry.update(origin=case.origin, reason=case.reason, target=case.target)
        entries.append(entry)
    return entries


def disagreement_section(result: HealResult) -> dict[str, Any] | None:
    """Where the plausible patches disagree (agent/alternatives.py), and the tests held back because
    they assert what only some of them give."""
    found = result.disagreement
    if found is None:
        return None
    judgement = found.judgement
    prefix = f"{result.project_dir}/" if result.project_dir else ""
    return {
        "open": found.open,
        "measured": found.measured,
        "plausible": found.plausible,
        "probes": found.probes,
        "groups": [
            {
                "members": list(g.members),
                "patch": g.patch,
                "shipped": g.shipped,
                "validated": g.validated,
                "decision_test": g.decision_test,
                "refuted_by": g.refuted_by or None,
            }
            for g in found.groups
        ],
        "inputs": [
            {"function": i.function, "call": i.call, "base": i.base, "results": list(i.results)}
            for i in found.inputs
        ],
        "judgement": (
            {"preferred": judgement.preferred, "reasons": judgement.reasons, "provider": judgement.provider}
            if judgement is not None
            else None
        ),
        "held_back_tests": [
            {"path": prefix + p.path, "name": p.case.name, "origin": p.case.origin, "code": p.case.code}
            for p in result.tests.contested
        ],
        "notes": list(found.notes),
    }


def memory_section(result: HealResult) -> dict[str, Any]:
    """The earlier heals this one recalled, and whether each pointed where the fix was."""
    fixes = [(f.family, f.file, f.function) for f in result.fixes]
    return {
        "version": MEMORY_VERSION,
        "store": result.memory,
        "recalled": [
            {
                "id": item.record.id,
                "created": item.record.created,
                "status": item.record.status,
                "score": item.score,
                "weight": item.weight,
                "families": list(item.record.families),
                "lesson": lesson_of(item.record),
                "helped": helped(item, fixes),
            }
            for item in result.recalled
        ],
    }


def build_report(result: HealResult) -> dict[str, Any]:
    metrics = result.metrics
    verdict = result.verdict
    confidence = assess(result)
    return {
        "schema_version": SCHEMA_VERSION,
        "selfheal_schema_version": SELFHEAL_SCHEMA_VERSION,
        "status": result.status,
        "error": result.error,
        "repo": result.repo,
        "project_dir": result.project_dir,
        "base_sha": result.base_sha,
        "test_command": result.test_command,
        "python": result.python,
        "provider": result.provider,
        "sandbox": {
            **result.sandbox.as_dict(),
            **({"fallback": result.sandbox_fallback.as_dict()} if result.sandbox_fallback else {}),
        },
        "failures_before": result.failures_before,
        "failures_after": result.failures_after,
        "regressions": result.regressions,
        "flaky": list(result.flaky),
        "targets": [t.as_dict() for t in result.targets],
        "diagnosis": diagnosis(result, confidence),
        # the probability that the shipped patch is right, whether it is ready for review, and why not
        "confidence": confidence.as_dict() if confidence is not None else None,
        "patch": result.patch,
        "files_changed": result.files_changed,
        "new_tests": new_tests(result),
        "discarded_tests": [
            {"name": case.name, "origin": case.origin, "reason": why} for case, why in result.tests.discarded
        ],
        "open_risks": list(result.tests.risks),
        "critic": list(result.critic),  # concerns of a critic who sent the shipped patch back
        "model": result.model,
        # candidates that passed screening and were refused by the verdict's run, with the rules
        "rejected": [
            {
                "candidate": r.candidate.description[:300],
                "strategy": r.candidate.strategy,
                "file": r.candidate.file,
                "function": r.candidate.function,
                "rules": sorted({rule.number for rule in r.verdict.rules if not rule.holds}),
                "violations": [v[:500] for v in r.verdict.violations],
            }
            for r in result.rejections[:MAX_REJECTED_SHOWN]
        ],
        # what in the shipped patch may only fit the tests (agent/repair/overfit.py): for the reviewer
        "overfit_risks": [
            {"kind": r.kind, "function": r.function, "detail": r.detail} for r in result.overfit_risks
        ],
        # the shipped patch only skips the failing path in these functions (agent/repair/bypass.py)
        "bypass": list(result.bypass),
        # the plausible patches compared on generated inputs: whether the tests determine the fix
        "disagreement": disagreement_section(result),
        "lessons": build_lessons(result),
        "iterations": result.iterations,
        "metrics": {
            "wall_s": round(metrics.wall_s, 3),
            "test_runs": metrics.test_runs,
            "candidates_tried": metrics.candidates_tried,
            "candidates_screened": metrics.screened,
            "screen_s": round(metrics.screen_s, 3),
            "screened_per_s": round(metrics.screened_per_s, 2),
            "screener": metrics.screener,
            "baseline_s": round(metrics.baseline_s, 3),
            "validations": metrics.validations,
            "tokens_in": metrics.tokens_in,
            "tokens_out": metrics.tokens_out,
            "cost_usd": round(metrics.cost_usd, 6),
            "first_plausible_at": metrics.first_plausible_at,
            "screened_after_plausible": metrics.screened_after_plausible,
        },
        "verdict": (
            {
                "status": verdict.status,
                "rules": [{"rule": r.number, "holds": r.holds, "detail": r.detail} for r in verdict.rules],
            }
            if verdict
            else None
        ),
        "fixes": [
            {
                "file": f.file,
                "line": f.line,
                "function": f.function,
                "family": f.family,
                "description": f.description,
                "strategy": f.strategy,
            }
            for f in result.fixes
        ],
        "notes": list(result.notes),
        "stopped_because": result.stopped_because or None,
        "memory": memory_section(result),
        "localization": [
            {"file": s.file, "line": s.line, "function": s.function, "score": round(s.score, 4)}
            for s in (result.localization.lines[:LOCALIZED_LINES] if result.localization else ())
        ],
    }
