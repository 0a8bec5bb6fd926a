"""How well confidences match how often heals are right: the reliability table and the expected
calibration error.

    reliability(scored, threshold) -> Reliability
    chance_ece(confidences) -> (median, 90th percentile): the error a perfectly calibrated model shows

`scored` holds one (confidence, reference-correct) pair per labelled heal. The heals are put in
buckets of confidence of width 0.1 ([0, 0.1), ..., [0.9, 1.0]); per bucket: heals, how many are
reference-correct, their mean confidence, and precision (correct / heals). The expected calibration
error is the mean over buckets of |precision - mean confidence|, each bucket weighted by its share
of the heals (Naeini et al., 2015; Guo et al., 2017). Ready for review: the heals whose confidence
reaches the threshold; their precision is what a reviewer of a ready pull request can expect.

On few heals the error is mostly chance: `chance_ece` draws each heal's label from its own
confidence (a model that is right exactly as often as it says) many times and reports the median
and 90th percentile of the error those draws show. An error within that range is what perfect
calibration looks like on that many heals; it cannot be told from it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass

BUCKETS = 10
ECE_DEFINITION = (
    f"expected calibration error: the mean over {BUCKETS} buckets of confidence (width {1 / BUCKETS:g}) of "
    "|precision - mean confidence|, each weighted by its share of the heals"
)


@dataclass(frozen=True)
class Bucket:
    low: float
    high: float
    heals: int
    correct: int
    mean_confidence: float
    precision: float


@dataclass(frozen=True)
class Reliability:
    buckets: tuple[Bucket, ...]  # the buckets that hold a heal, lowest first
    heals: int
    correct: int
    ece: float | None  # None: no heal
    threshold: float | None
    ready: int  # heals at or above the threshold
    ready_correct: int
    ready_precision: float | None  # None: none ready

    def as_dict(self) -> dict:
        return {**asdict(self), "buckets": [asdict(b) for b in self.buckets], "definition": ECE_DEFINITION}


def bucket_of(confidence: float) -> int:
    """[0, 0.1) -> 0 ... [0.9, 1.0] -> 9, read on the hundredths a confidence is shown with."""
    return min(round(confidence * 100) * BUCKETS // 100, BUCKETS - 1)


def reliability(
    scored: Sequence[tuple[float, bool]], threshold: float | None, ready: Sequence[bool] | None = None
) -> Reliability:
    """The table of `scored` (confidence, reference-correct) pairs. Ready for review: `ready`, one
    flag per pair as each heal decided it, else the confidences that reach `threshold`."""
    groups: dict[int, list[tuple[float, bool]]] = {}
    for confidence, correct in scored:
        groups.setdefault(bucket_of(confidence), []).append((confidence, correct))
    total = len(scored)
    buckets = []
    error = 0.0
    for index in sorted(groups):
        members = groups[index]
        right = sum(correct for _, correct in members)
        mean = sum(c for c, _ in members) / len(members)
        error += len(members) / total * abs(right / len(members) - mean)
        buckets.append(Bucket(
            low=round(index / BUCKETS, 2), high=round((index + 1) / BUCKETS, 2), heals=len(members),
            correct=right, mean_confidence=round(mean, 4), precision=round(right / len(members), 4),
        ))  # fmt: skip
    if ready is None:
        ready = [threshold is not None and confidence >= threshold for confidence, _ in scored]
    shipped = [correct for (_, correct), flag in zip(scored, ready, strict=True) if flag]
    return Reliability(
        buckets=tuple(buckets),
        heals=total,
        correct=sum(correct for _, correct in scored),
        ece=round(error, 4) if total else None,
        threshold=threshold,
        ready=len(shipped),
        ready_correct=sum(shipped),
        ready_precision=round(sum(shipped) / len(shipped), 4) if shipped else None,
    )


CHANCE_DRAWS = 2000


def chance_ece(confidences: Sequence[float], draws: int = CHANCE_DRAWS, seed: int = 0) -> tuple[float, float]:
    """The median and 90th percentile of the expected calibration error of labels drawn from the
    confidences themselves (seeded: the same figures every time)."""
    rng = random.Random(seed)
    errors = sorted(
        reliability([(c, rng.random() < c) for c in confidences], None).ece or 0.0 for _ in range(draws)
    )
    return round(errors[len(errors) // 2], 4), round(errors[int(len(errors) * 0.9)], 4)


COLUMNS = ("confidence", "heals", "reference-correct", "mean confidence", "precision")


def table_rows(table: dict) -> list[list[str]]:
    """The rows of a reliability table (as `Reliability.as_dict` writes it), for both renderings."""
    return [
        [
            f"{b['low']:.1f}-{b['high']:.1f}",
            str(b["heals"]),
            str(b["correct"]),
            f"{b['mean_confidence']:.2f}",
            f"{b['precision']:.0%}",
        ]
        for b in table["buckets"]
    ]


def summary_line(table: dict) -> str:
    """ECE and the ready-for-review figures in one line."""
    ece = "-" if table["ece"] is None else f"{table['ece']:.3f}"
    threshold = "-" if table["threshold"] is None else f"{table['threshold']:.2f}"
    precision = "-" if table["ready_precision"] is None else f"{table['ready_precision']:.0%}"
    chance = table.get("chance_ece")
    by_chance = (
        f" (a perfectly calibrated model shows {chance['median']:.3f} on as many heals, 90 % of the time "
        f"at most {chance['p90']:.3f})"
        if chance
        else ""
    )
    return (
        f"expected calibration error {ece} over {table['heals']} labelled heals "
        f"({table['correct']} reference-correct){by_chance}; ready for review (confidence >= {threshold}): "
        f"{table['ready']}, {table['ready_correct']} correct ({precision})"
    )
