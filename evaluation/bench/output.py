"""The result document (`--json`): settings, per-task records, rates, fix quality, overfitting,
baseline, gate.

Checked against `evaluation/bench.schema.json` before it is written, so a consumer (a baseline
comparison, a dashboard) can rely on its shape. Version 2 added `fix_quality` and the records'
`matches_reference`; the schema still accepts version 1 documents (saved results, baselines). The
`calibration` section and the records' `confidence`, `ready` and `features` are optional: documents
from before them still validate.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema

from evaluation.bench.gate import Check, Gate
from evaluation.bench.metrics import Summary
from evaluation.bench.record import TaskRun
from selfheal import __version__

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "bench.schema.json"
SCHEMA_VERSION = 2


def build_document(
    runs: Sequence[TaskRun],
    summary: Summary,
    *,
    settings: Mapping[str, Any],
    subset: str | None,
    wall_s: float,
    baseline: Mapping[str, Any] | None = None,
    gate: tuple[Gate, list[Check]] | None = None,
) -> dict[str, Any]:
    by_id = {r.id: r for r in runs}
    return {
        "schema_version": SCHEMA_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "selfheal_version": __version__,
        "subset": subset,
        "settings": dict(settings),
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count() or 1,
        },
        "wall_s": round(wall_s, 3),
        "tasks": [r.as_dict() for r in runs],
        "overall": summary.overall.as_dict(),
        "categories": {name: group.as_dict() for name, group in summary.categories.items()},
        "fix_quality": summary.fix_quality.as_dict(),
        "calibration": summary.calibration.as_dict() if summary.calibration is not None else None,
        "overfitting": [
            {
                "id": task_id,
                "category": by_id[task_id].category,
                "fix": by_id[task_id].fix,
                "hidden_failing": list(by_id[task_id].hidden.failing) if by_id[task_id].hidden else [],
                "patch": by_id[task_id].patch,
            }
            for task_id in summary.overfitting
        ],
        "baseline": dict(baseline) if baseline is not None else None,
        "gate": (
            {
                "file": str(gate[0].path),
                "subset": gate[0].subset,
                "passed": all(c.passed for c in gate[1]),
                "checks": [
                    {
                        "key": c.key,
                        "figure": c.figure,
                        "measured": c.measured,
                        "limit": c.limit,
                        "passed": c.passed,
                    }
                    for c in gate[1]
                ],
            }
            if gate is not None
            else None
        ),
    }


def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def validate(document: Mapping[str, Any]) -> None:
    """jsonschema.ValidationError when the document breaks the schema."""
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)


def runs_of(document: Mapping[str, Any]) -> list[TaskRun]:
    return [TaskRun.from_dict(task) for task in document["tasks"]]
