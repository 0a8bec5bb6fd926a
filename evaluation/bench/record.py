"""What the benchmark keeps of one task's heal: a flat value, the same in memory and in the JSON."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any

from evaluation.bench.tasks import Task

# Statuses besides the heal's own (healed, partial, not_healed, nothing_to_heal, error):
TIMEOUT = "timeout"  # the worker ran past the bench's hard limit and was killed
CRASHED = "crashed"  # the worker died without writing its record


@dataclass(frozen=True)
class HiddenRun:
    """The hidden reference tests on the patched copy."""

    passed: int
    failed: int  # failures and errors
    failing: tuple[str, ...]  # node ids, at most a handful
    timed_out: bool = False
    output: str = ""  # the tail of pytest's output when something failed
    # files the run added, changed or removed in the copy ("path (created)"): the patch's doing
    changed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.timed_out and self.failed == 0 and self.passed > 0 and not self.changed


@dataclass(frozen=True)
class TaskRun:
    id: str
    category: str
    difficulty: str
    kind: tuple[str, ...]
    task_digest: str  # Task.digest(): which version of the task this result is about
    status: str
    self_reported: bool  # the heal said healed: its verdict held on the visible tests
    reference_validated: bool  # ... and the hidden reference tests pass on its patch
    first_pass: bool  # healed in repair round 1
    iterations: int
    candidates_tried: int
    candidates_screened: int
    screen_s: float
    first_plausible: int | None  # screenings until the first plausible candidate (1-based)
    fix_family: str | None  # mutation family of the shipped fix ("a+b" for a pair; rounds joined by ", ")
    fix_strategy: str | None  # search | generator | ...
    fix: str | None  # the fix's description
    wall_s: float
    tokens: int
    cost_usd: float
    new_fail_to_pass: int
    new_guard: int
    hidden: HiddenRun | None  # None: not run (the heal did not report healed)
    error: str | None
    # the shipped patch is the reference fix (solution.diff), compared as syntax trees
    # (evaluation/bench/reference.py); None: not compared (not healed, or a record from before)
    matches_reference: bool | None = None
    patch: str | None = None  # the shipped patch of a self-reported heal, to read an overfitting one
    # what the heal itself said of its patch: it only skips the failing path / it may fit the tests
    bypass: bool = False
    overfit_flagged: bool = False
    # the heal's confidence (report.json `confidence`): the probability that its patch is right,
    # whether it was ready for review, and the features it was computed from; None: the heal kept no
    # fix, or a record from before
    confidence: float | None = None
    ready: bool | None = None
    features: dict[str, Any] | None = None

    @property
    def overfitting(self) -> bool:
        """Passes the visible tests, fails the hidden ones: what a reviewer would have merged."""
        return self.self_reported and not self.reference_validated

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = list(self.kind)
        if self.hidden is not None:
            data["hidden"]["failing"] = list(self.hidden.failing)
            data["hidden"]["changed"] = list(self.hidden.changed)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskRun:
        """The record as `as_dict` wrote it; fields added since take their default when absent."""
        values = {
            f.name: data[f.name] if f.default is MISSING else data.get(f.name, f.default) for f in fields(cls)
        }
        values["kind"] = tuple(values["kind"])
        hidden = values["hidden"]
        if hidden is not None:
            values["hidden"] = HiddenRun(
                **{**hidden, "failing": tuple(hidden["failing"]), "changed": tuple(hidden.get("changed", ()))}
            )
        return cls(**values)


def first_plausible(events: Iterable[Mapping[str, Any]]) -> int | None:
    """The screening number of the first plausible candidate, from the trace's screen events."""
    for event in events:
        if event.get("node") == "screen" and event.get("plausible"):
            return int(event.get("n", 0)) or None
    return None


def from_report(
    task: Task,
    report: Mapping[str, Any],
    events: Iterable[Mapping[str, Any]],
    hidden: HiddenRun | None,
    digest: str,
    matches_reference: bool | None = None,
) -> TaskRun:
    """The record of a heal that finished, from its report.json and trace events; `digest` is the
    task's as it was copied for the heal, `matches_reference` the comparison of its patch with the
    reference fix (kept only for a heal that reported healed)."""
    metrics = report["metrics"]
    fixes = report.get("fixes") or []
    healed = report["status"] == "healed"
    new_tests = report.get("new_tests") or []
    confidence = report.get("confidence") or {}
    return TaskRun(
        id=task.id,
        category=task.category,
        difficulty=task.difficulty,
        kind=task.kind,
        task_digest=digest,
        status=report["status"],
        self_reported=healed,
        reference_validated=healed and hidden is not None and hidden.ok,
        first_pass=healed and report.get("iterations") == 1,
        iterations=int(report.get("iterations") or 0),
        candidates_tried=int(metrics["candidates_tried"]),
        candidates_screened=int(metrics["candidates_screened"]),
        screen_s=float(metrics["screen_s"]),
        first_plausible=first_plausible(events),
        fix_family=", ".join(f["family"] for f in fixes) or None,
        fix_strategy=", ".join(dict.fromkeys(f["strategy"] for f in fixes)) or None,
        fix="; ".join(f["description"] for f in fixes) or None,
        wall_s=float(metrics["wall_s"]),
        tokens=int(metrics["tokens_in"]) + int(metrics["tokens_out"]),
        cost_usd=float(metrics["cost_usd"]),
        new_fail_to_pass=sum(t.get("kind") == "fail_to_pass" for t in new_tests),
        new_guard=sum(t.get("kind") == "guard" for t in new_tests),
        hidden=hidden,
        error=report.get("error"),
        matches_reference=matches_reference if healed else None,
        patch=(report.get("patch") or None) if healed else None,
        bypass=healed and bool(report.get("bypass")),
        overfit_flagged=healed and bool(report.get("overfit_risks")),
        confidence=confidence.get("probability"),
        ready=confidence.get("ready"),
        features=dict(confidence["features"]) if confidence.get("features") is not None else None,
    )


def failed_run(task: Task, status: str, error: str, wall_s: float) -> TaskRun:
    """The record of a task whose heal did not finish (killed, crashed, or refused its input)."""
    return TaskRun(
        id=task.id, category=task.category, difficulty=task.difficulty, kind=task.kind,
        task_digest=task.digest(), status=status,
        self_reported=False, reference_validated=False, first_pass=False, iterations=0,
        candidates_tried=0, candidates_screened=0, screen_s=0.0, first_plausible=None, fix_family=None,
        fix_strategy=None, fix=None, wall_s=wall_s, tokens=0, cost_usd=0.0, new_fail_to_pass=0,
        new_guard=0, hidden=None, error=error,
    )  # fmt: skip
