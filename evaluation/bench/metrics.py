"""Rates and figures over task records: overall, per category, and against a baseline run.

The four rates partition honestly:
- first-pass success: healed in repair round 1;
- healed after repair: healed in a later round (a round that fixed only part of the failures
  handed the rest to the next), so first-pass + after-repair = final self-reported;
- final self-reported: the heal said healed (its verdict held on the visible tests);
- final reference-validated: self-reported AND the hidden reference tests pass on the patch.
Self-reported minus reference-validated is the overfitting gap.

The calibration of the heals' confidence (`Calibration`): per bucket of confidence, the heals and
how many are reference-correct (evaluation/calibration/labels.py), the expected calibration error,
and the precision of those ready for review.

The fix quality of the search engine (`FixQuality`): which mutation families the shipped fixes
came from, how many screenings it took to reach the first plausible candidate, and how often the
chosen patch is the reference fix itself (`TaskRun.matches_reference`).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from evaluation.bench.record import TaskRun
from evaluation.calibration.labels import Judgement, label_of, load_judgements
from evaluation.calibration.reliability import Reliability, reliability
from selfheal.agent.report.confidence import load_calibration

RATES = ("first_pass_rate", "healed_after_repair_rate", "self_reported_rate", "reference_validated_rate")
# figures a baseline comparison reports (higher is better for rates and speed, lower for the rest)
COMPARED = (*RATES, "avg_iterations", "median_wall_s", "candidates_per_s", "tokens_per_heal", "cost_usd")


@dataclass(frozen=True)
class GroupMetrics:
    tasks: int
    first_pass: int
    healed_after_repair: int
    self_reported: int
    reference_validated: int
    overfitting: int
    first_pass_rate: float
    healed_after_repair_rate: float
    self_reported_rate: float
    reference_validated_rate: float
    avg_iterations: float  # over every task, rounds of repair it ran (0: it never got to repair)
    median_wall_s: float  # of one heal
    candidates_per_s: float  # screenings / seconds spent screening, over the group
    tokens_per_heal: float  # model tokens (in + out) per task
    cost_usd: float  # total

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def group_metrics(runs: Sequence[TaskRun]) -> GroupMetrics:
    count = len(runs)

    def rate(n: int) -> float:
        return round(n / count, 4) if count else 0.0

    first = sum(r.first_pass for r in runs)
    self_reported = sum(r.self_reported for r in runs)
    validated = sum(r.reference_validated for r in runs)
    screen_s = sum(r.screen_s for r in runs)
    return GroupMetrics(
        tasks=count,
        first_pass=first,
        healed_after_repair=self_reported - first,
        self_reported=self_reported,
        reference_validated=validated,
        overfitting=sum(r.overfitting for r in runs),
        first_pass_rate=rate(first),
        healed_after_repair_rate=rate(self_reported - first),
        self_reported_rate=rate(self_reported),
        reference_validated_rate=rate(validated),
        avg_iterations=round(statistics.fmean(r.iterations for r in runs), 3) if runs else 0.0,
        median_wall_s=round(statistics.median(r.wall_s for r in runs), 3) if runs else 0.0,
        candidates_per_s=round(sum(r.candidates_screened for r in runs) / screen_s, 2) if screen_s else 0.0,
        tokens_per_heal=round(sum(r.tokens for r in runs) / count, 1) if count else 0.0,
        cost_usd=round(sum(r.cost_usd for r in runs), 6),
    )


@dataclass(frozen=True)
class FamilyFigures:
    """The tasks whose shipped fix used one mutation family (a task counts once per family)."""

    family: str
    tasks: int  # any status that shipped a fix: a partial heal's rounds count too
    self_reported: int
    reference_validated: int
    matches_reference: int


@dataclass(frozen=True)
class FirstPlausible:
    """Screenings until the first plausible candidate, over the tasks whose search found one."""

    tasks: int
    median: float | None  # None: no task found a plausible candidate
    mean: float | None
    max: int | None
    after_median: float | None  # screenings spent after it (candidates_screened - first_plausible)


@dataclass(frozen=True)
class ChosenPatch:
    """The patch shipped by a self-reported heal, against the hidden tests and the reference fix."""

    self_reported: int
    compared: int  # of those, compared with the reference fix (not in records from before that)
    reference_validated: int
    matches_reference: int  # the same code as solution.diff's, file by file
    reference_validated_rate: float  # of self-reported
    matches_reference_rate: float  # of self-reported


@dataclass(frozen=True)
class FixQuality:
    families: tuple[FamilyFigures, ...]  # most used first
    first_plausible: FirstPlausible
    chosen_patch: ChosenPatch

    def as_dict(self) -> dict[str, Any]:
        return {
            "families": [asdict(f) for f in self.families],
            "first_plausible": asdict(self.first_plausible),
            "chosen_patch": asdict(self.chosen_patch),
        }


def families_of(fix_family: str | None) -> list[str]:
    """The single families in a record's `fix_family` ("a+b" a pair, rounds joined by ", ")."""
    names = (part.strip() for round_ in (fix_family or "").split(",") for part in round_.split("+"))
    return list(dict.fromkeys(name for name in names if name))


def fix_quality(runs: Sequence[TaskRun]) -> FixQuality:
    by_family: dict[str, list[TaskRun]] = {}
    for run in runs:
        for family in families_of(run.fix_family):
            by_family.setdefault(family, []).append(run)
    families = sorted(
        (
            FamilyFigures(
                family=name,
                tasks=len(used),
                self_reported=sum(r.self_reported for r in used),
                reference_validated=sum(r.reference_validated for r in used),
                matches_reference=sum(bool(r.matches_reference) for r in used),
            )
            for name, used in by_family.items()
        ),
        key=lambda f: (-f.tasks, -f.reference_validated, f.family),
    )

    until = [r.first_plausible for r in runs if r.first_plausible is not None]
    # never below 0, even for a record whose counts disagree (the schema holds the document to it)
    after = [max(r.candidates_screened - r.first_plausible, 0) for r in runs if r.first_plausible is not None]
    first = FirstPlausible(
        tasks=len(until),
        median=float(statistics.median(until)) if until else None,
        mean=round(statistics.fmean(until), 2) if until else None,
        max=max(until) if until else None,
        after_median=float(statistics.median(after)) if after else None,
    )

    healed = [r for r in runs if r.self_reported]
    validated = sum(r.reference_validated for r in healed)
    matching = sum(bool(r.matches_reference) for r in healed)

    def rate(n: int) -> float:
        return round(n / len(healed), 4) if healed else 0.0

    chosen = ChosenPatch(
        self_reported=len(healed),
        compared=sum(r.matches_reference is not None for r in healed),
        reference_validated=validated,
        matches_reference=matching,
        reference_validated_rate=rate(validated),
        matches_reference_rate=rate(matching),
    )
    return FixQuality(families=tuple(families), first_plausible=first, chosen_patch=chosen)


@dataclass(frozen=True)
class Calibration:
    """How far the heals' confidences mean what they say (evaluation/calibration): the reliability
    table of the self-reported heals that recorded a confidence and have a label, and the heals
    left out of it."""

    table: Reliability
    labels: dict[str, str]  # task id -> how its label was decided (labels.Label.how), every heal
    incorrect: tuple[str, ...]  # labelled not reference-correct
    unjudged: tuple[str, ...]  # validated, not the reference fix, no judgement of this patch
    unscored: tuple[str, ...]  # recorded no confidence (a record from before)

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.table.as_dict(),
            "labels": dict(self.labels),
            "incorrect": list(self.incorrect),
            "unjudged": list(self.unjudged),
            "unscored": list(self.unscored),
        }


def calibration(
    runs: Sequence[TaskRun],
    suite: str,
    judgements: Mapping[tuple[str, str, str], Judgement],
    threshold: float | None,
) -> Calibration:
    scored: list[tuple[float, bool]] = []
    ready: list[bool] = []
    how: dict[str, str] = {}
    incorrect, unjudged, unscored = [], [], []
    for run in runs:
        label = label_of(run, suite, judgements)
        if label is None:
            continue
        how[run.id] = label.how
        if label.correct is None:
            unjudged.append(run.id)
        elif run.confidence is None:
            unscored.append(run.id)
        else:
            scored.append((run.confidence, label.correct))
            ready.append(bool(run.ready))
        if label.correct is False:
            incorrect.append(run.id)
    return Calibration(
        table=reliability(scored, threshold, ready),
        labels=how,
        incorrect=tuple(incorrect),
        unjudged=tuple(unjudged),
        unscored=tuple(unscored),
    )


@dataclass(frozen=True)
class Summary:
    overall: GroupMetrics
    categories: dict[str, GroupMetrics]
    overfitting: tuple[str, ...]  # task ids: self-reported, hidden tests fail
    fix_quality: FixQuality
    calibration: Calibration | None = None

    @classmethod
    def of(
        cls,
        runs: Sequence[TaskRun],
        suite: str = "own",
        judgements: Mapping[tuple[str, str, str], Judgement] | None = None,
        threshold: float | None = None,
    ) -> Summary:
        """`judgements` default to evaluation/calibration/labels.toml's; `threshold` (shown with the
        table) to the shipped calibration's."""
        names = sorted({r.category for r in runs})
        judged = load_judgements() if judgements is None else judgements
        return cls(
            overall=group_metrics(runs),
            categories={name: group_metrics([r for r in runs if r.category == name]) for name in names},
            overfitting=tuple(r.id for r in runs if r.overfitting),
            fix_quality=fix_quality(runs),
            calibration=calibration(
                runs, suite, judged, load_calibration().threshold if threshold is None else threshold
            ),
        )


def compare(current: Mapping[str, Any], baseline: Mapping[str, Any]) -> dict[str, Any]:
    """What changed from a baseline result document (both as `--json` writes them)."""
    overall = {
        key: round(current["overall"][key] - baseline["overall"][key], 4)
        for key in COMPARED
        if key in baseline["overall"]
    }
    categories = {
        name: round(
            group["reference_validated_rate"] - baseline["categories"][name]["reference_validated_rate"], 4
        )
        for name, group in current["categories"].items()
        if name in baseline["categories"]
    }
    before = {t["id"]: t for t in baseline["tasks"]}
    now = {t["id"]: t for t in current["tasks"]}
    common = sorted(set(before) & set(now))
    return {
        "overall": overall,
        "categories_reference_validated_rate": categories,
        "newly_validated": [
            i for i in common if now[i]["reference_validated"] and not before[i]["reference_validated"]
        ],
        "no_longer_validated": [
            i for i in common if before[i]["reference_validated"] and not now[i]["reference_validated"]
        ],
        "not_in_baseline": sorted(set(now) - set(before)),
        # the same id, other content: their flips say as much about the task as about the engine
        "changed_tasks": [i for i in common if now[i]["task_digest"] != before[i]["task_digest"]],
    }
