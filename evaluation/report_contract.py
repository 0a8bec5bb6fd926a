"""Does a report.json meet its contracts? The shared one (contracts/heal-report.schema.json, a copy
of the format other tools rely on, which allows extra fields) and selfheal's own
(contracts/heal-report.selfheal.schema.json: every field selfheal writes, each required, no other).

    report_problems(report) -> ["<schema file>: <JSON path>: <message>", ...]   (empty: it meets both)
    report_file_problems(path) -> the same for a report.json on disk, or why it could not be read
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

CONTRACTS = Path(__file__).resolve().parents[1] / "contracts"
SHARED = CONTRACTS / "heal-report.schema.json"
SELFHEAL = CONTRACTS / "heal-report.selfheal.schema.json"


@cache
def _validator(path: Path) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def report_problems(report: Any) -> list[str]:
    """Every way `report` misses either contract, each naming the schema and where."""
    return [
        f"{path.name}: {error.json_path}: {error.message}"
        for path in (SHARED, SELFHEAL)
        for error in _validator(path).iter_errors(report)
    ]


def report_file_problems(path: Path) -> list[str]:
    """`report_problems` of the file's JSON; a file that cannot be read or parsed is one problem."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return [f"not a readable JSON document: {exc}"]
    return report_problems(report)
