"""The quality gate: thresholds per subset (evaluation/gate.toml), checked against a run.

    [smoke]
    provider = "none"                     # the engine the thresholds were measured with
    reference_validated_rate_min = 0.75   # at least this share of tasks healed AND hidden tests pass
    median_wall_s_max = 30.0              # median seconds of one heal
    tokens_per_heal_max = 0               # model tokens per task

A threshold that is left out is not checked. The section is the subset's name; a run of chosen
tasks (`--tasks`) within a subset is held to that subset's thresholds.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from evaluation.bench.metrics import GroupMetrics

# key in gate.toml -> (figure of GroupMetrics, True for a minimum / False for a maximum)
LIMITS = {
    "reference_validated_rate_min": ("reference_validated_rate", True),
    "median_wall_s_max": ("median_wall_s", False),
    "tokens_per_heal_max": ("tokens_per_heal", False),
}


class GateError(ValueError):
    """The gate file cannot be used for this run."""


@dataclass(frozen=True)
class Check:
    key: str  # as written in gate.toml
    figure: str
    measured: float
    limit: float
    passed: bool

    def describe(self) -> str:
        sign = ">=" if LIMITS[self.key][1] else "<="
        state = "ok" if self.passed else "MISSED"
        return f"{state}: {self.figure} = {self.measured:g} (threshold {self.key}: {sign} {self.limit:g})"


@dataclass(frozen=True)
class Gate:
    path: Path
    subset: str
    provider: str
    limits: dict[str, float]

    def check(self, overall: GroupMetrics) -> list[Check]:
        checks = []
        for key, limit in self.limits.items():
            figure, is_min = LIMITS[key]
            measured = float(getattr(overall, figure))
            passed = measured >= limit if is_min else measured <= limit
            checks.append(Check(key, figure, measured, limit, passed))
        return checks


def load_gate(path: Path, subset: str | None, provider: str) -> Gate:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise GateError(f"{path}: no such file") from exc
    except tomllib.TOMLDecodeError as exc:
        raise GateError(f"{path}: not valid TOML: {exc}") from exc
    if subset is None:
        raise GateError("--gate needs --subset: the thresholds are per subset")
    table = data.get(subset)
    if not isinstance(table, dict):
        raise GateError(f"{path}: no [{subset}] thresholds (sections: {', '.join(sorted(data)) or 'none'})")
    table = dict(table)
    measured_with = table.pop("provider", "none")
    if measured_with != provider:
        raise GateError(
            f"{path}: the [{subset}] thresholds were measured with provider {measured_with!r}, "
            f"this run uses {provider!r}"
        )
    unknown = sorted(set(table) - set(LIMITS))
    if unknown:
        raise GateError(f"{path}: [{subset}] unknown keys {', '.join(unknown)}; known: {', '.join(LIMITS)}")
    limits: dict[str, float] = {}
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise GateError(f"{path}: [{subset}] {key} must be a number >= 0, not {value!r}")
        limits[key] = float(value)
    if not limits:
        raise GateError(f"{path}: [{subset}] sets no threshold")
    return Gate(path, subset, measured_with, limits)
