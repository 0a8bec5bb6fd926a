"""The features of a benchmark heal, to fit the confidence on: what the heal recorded, or, in a
record from before the heal recorded them, each feature rebuilt from what the record holds.

    record_features(run, suite) -> (features, source per feature)

A record with `features` (report.json's `confidence.features`) is used as it is: every feature it
holds is what the heal measured. What a record does not hold (a record from before the heal
measured it) is rebuilt where the record or the task allows (`FALLBACKS` says how); a feature that
cannot be rebuilt is None, "not measured", as in a heal that did not measure it. The fit leaves
out a term whose feature too few heals have.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from evaluation.bench.metrics import families_of
from evaluation.bench.record import TaskRun
from evaluation.bench.tasks import TASKS_DIR, TaskError, load_task
from evaluation.realbugs.manifest import ManifestError, load_manifest
from evaluation.realbugs.sdist import default_cache
from selfheal.agent.config import DEFAULT_PROTECTED
from selfheal.agent.localize.spectrum import source_files
from selfheal.agent.repair.mutation import PRIORS
from selfheal.agent.report.confidence import FEATURES, NO_JUDGEMENT, code_lines, patch_lines
from selfheal.agent.run.workspace import Origin

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
    "source_lines": "counted as the heal counts it, over the task's base repository: the Python files "
    "a repair may change under the default protected globs",
    "fixes": "the rounds in `fix_family` (joined by ', ')",
    "rounds": "the record's `iterations`",
    "judgement": "'none': no model took part in these runs",
}


def record_features(run: TaskRun, suite: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The features of a self-reported heal's record, and where each value came from."""
    recorded = run.features or {}
    if all(name in recorded for name in FEATURES):
        return {name: recorded[name] for name in FEATURES}, dict.fromkeys(FEATURES, RECORDED)
    rebuilt = rebuilt_features(run, suite)
    features = {name: recorded[name] if name in recorded else rebuilt.get(name) for name in FEATURES}
    sources = {name: RECORDED if name in recorded else FALLBACKS.get(name, NOT_RECORDED) for name in FEATURES}
    return features, sources


def rebuilt_features(run: TaskRun, suite: str) -> dict[str, Any]:
    """What the record and the task allow to rebuild of the features (`FALLBACKS`)."""
    families = families_of(run.fix_family)
    priors = [PRIORS.get(name) for name in families]
    rounds = [part for part in (run.fix_family or "").split(",") if part.strip()]
    first = run.first_plausible
    return {
        "bypass": run.bypass,
        "overfit_risks": 1 if run.overfit_flagged else 0,
        "family": run.fix_family,
        "family_prior": None if not priors or None in priors else min(p for p in priors if p is not None),
        "screened_before": first,
        "screened_after": max(run.candidates_screened - first, 0) if first is not None else None,
        "failing_tests": visible_failing(suite, run.id),
        "new_tests_proven": run.new_fail_to_pass,
        "patch_lines": patch_lines(run.patch or ""),
        "source_lines": base_source_lines(suite, run.id),
        "fixes": len(rounds),
        "rounds": run.iterations,
        "judgement": NO_JUDGEMENT,
    }


@cache
def base_source_lines(suite: str, task_id: str) -> int | None:
    """The lines of a task's base files a repair may change, counted as a heal counts them (a task's
    repository sets no `[tool.selfheal]` globs); None when the task is not here."""
    tasks = default_cache().expanduser() / "tasks" if suite == "realbugs" else TASKS_DIR
    repo = tasks / task_id / "repo"
    if not repo.is_dir():
        return None
    files = [f for f in Origin.inspect(repo).files() if not (repo / f).is_symlink()]
    chosen = source_files(files, DEFAULT_PROTECTED)
    return code_lines({f: (repo / f).read_text(encoding="utf-8", errors="replace") for f in chosen})


@cache
def visible_failing(suite: str, task_id: str) -> int | None:
    """How many visible tests fail at the task's base, by its definition; None when it is not here."""
    try:
        if suite == "realbugs":
            return len(load_manifest().bug(task_id).failing)
        return len(load_task(TASKS_DIR / task_id).visible_failing)
    except (ManifestError, TaskError, OSError):
        return None
