"""Does a report.json meet its contracts? The shared one (contracts/heal-report.schema.json, a copy
of the format other tools rely on) and selfheal's own sections (contracts/heal-report.selfheal.schema.json:
`confidence`, `disagreement`, which the shared contract allows as extra fields but does not describe).

    report_problems(report) -> ["<schema file>: <JSON path>: <message>", ...]   (empty: it meets both)
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

CONTRACTS = Path(__file__).resolve().parents[1] / "contracts"
SHARED = CONTRACTS / "heal-report.schema.json"
SECTIONS = CONTRACTS / "heal-report.selfheal.schema.json"


@cache
def _validator(path: Path) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def report_problems(report: Any) -> list[str]:
    """Every way `report` misses either contract, each naming the schema and where."""
    return [
        f"{path.name}: {error.json_path}: {error.message}"
        for path in (SHARED, SECTIONS)
        for error in _validator(path).iter_errors(report)
    ]
