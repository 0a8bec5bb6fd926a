"""The features of a benchmark heal, to fit the confidence on: what the heal recorded, or, in a
record from before the heal recorded them, each feature rebuilt from what the record holds.

    record_features(run, suite) -> (features, source per feature)

A record with `features` (report.json's `confidence.features`) is used as it is: every feature is
what the heal measured. An older record rebuilds what it can (`FALLBACKS` says how); a feature it
cannot rebuild is None, "not measured", as in a heal that did not measure it. The fit leaves out
a term whose feature too few heals have.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from evaluation.bench.metrics import families_of
from evaluation.bench.record import TaskRun
from evaluation.bench.tasks import TASKS_DIR, TaskError, load_task
from evaluation.realbugs.manifest import ManifestError, load_manifest
from selfheal.agent.repair.mutation import PRIORS
from selfheal.agent.report.confidence import FEATURES, NO_JUDGEMENT, patch_lines

RECORDED = "recorded by the heal"
NOT_RECORDED = "not in the record: None (not measured)"
FALLBACKS: dict[str, str] = {
    "bypass": "the record's `bypass` (report.json `bypass` not empty)",
    "overfit_risks": "1 when the record's `overfit_flagged`, else 0 (the count was not recorded)",
    "family": "the record's `fix_family`",
    "family_prior": "the lowest prior (repair/mutation.py) of the families in `fix_family`",
    "screened_before": "the record's `first_plausible` (the trace's first plausible screening)",
    "screened_after": "`candidates_screened - first_plausible`",
    "failing_tests": "the task definition's visible failing tests (task.toml `visible_failing`, the "
    "manifest's `failing`): a test named for all its parametrizations counts once",
    "new_tests_proven": "the record's `new_fail_to_pass`",
    "patch_lines": "lines removed and added in the record's `patch`",
    "fixes": "the rounds in `fix_family` (joined by ', ')",
    "rounds": "the record's `iterations`",
    "judgement": "'none': no model took part in these runs",
}


def record_features(run: TaskRun, suite: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The features of a self-reported heal's record, and where each value came from."""
    if run.features is not None:
        return {name: run.features.get(name) for name in FEATURES}, dict.fromkeys(FEATURES, RECORDED)
    families = families_of(run.fix_family)
    priors = [PRIORS.get(name) for name in families]
    rounds = [part for part in (run.fix_family or "").split(",") if part.strip()]
    first = run.first_plausible
    rebuilt: dict[str, Any] = {
        "bypass": run.bypass,
        "overfit_risks": 1 if run.overfit_flagged else 0,
        "family": run.fix_family,
        "family_prior": None if not priors or None in priors else min(p for p in priors if p is not None),
        "screened_before": first,
        "screened_after": max(run.candidates_screened - first, 0) if first is not None else None,
        "failing_tests": visible_failing(suite, run.id),
        "new_tests_proven": run.new_fail_to_pass,
        "patch_lines": patch_lines(run.patch or ""),
        "fixes": len(rounds),
        "rounds": run.iterations,
        "judgement": NO_JUDGEMENT,
    }
    features = {name: rebuilt.get(name) for name in FEATURES}
    sources = {name: FALLBACKS.get(name, NOT_RECORDED) for name in FEATURES}
    return features, sources


@cache
def visible_failing(suite: str, task_id: str) -> int | None:
    """How many visible tests fail at the task's base, by its definition; None when it is not here."""
    try:
        if suite == "realbugs":
            return len(load_manifest().bug(task_id).failing)
        return len(load_task(TASKS_DIR / task_id).visible_failing)
    except (ManifestError, TaskError, OSError):
        return None
