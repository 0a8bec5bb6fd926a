"""The fault cases, read from the family modules under tests/action/faults/ without importing them:
each module holds a `FAMILY` name and a `CASES` list, both literals."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluation.corpus.cases import FamilyModule, read_cases

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "action" / "faults"
FAMILIES = ("github", "model", "sandbox", "disk", "signals")  # the figures' order
KEYS = {
    "id",
    "title",
    "rules",
    "inputs",
    "exit",
    "status",
    "signal",
    "stage",
    "disk_kb",
    "first_op",
    "model_step",
    "reason",
    "kill_container",
    "full",
    "report",
}


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    title: str
    rules: tuple[dict[str, Any], ...] = ()  # fake GitHub failure rules (POST /_fake/fail bodies)
    inputs: dict[str, str] = field(default_factory=dict)  # extra action inputs
    exit: int = 0  # the first run's expected exit code
    status: str = "healed"  # the first run's expected `status` output ("" for none: killed)
    first_op: str = "created"  # its `pr-operation` output ("" when it has none)
    signal: str = ""  # TERM | KILL: sent to the action when `stage` shows in its log
    kill_container: bool = False  # docker sandbox: `docker kill` its container when `stage` shows
    full: bool = False  # a variant: in `python -m evaluation.faults` and SELFHEAL_FAULTS_ALL=1, not in CI
    stage: str = ""
    report: str = ""  # a heal the signal stopped: the status of the report.json at the report-path output
    disk_kb: int = 0  # the workspace's output folder on a filesystem this small
    model_step: dict[str, Any] = field(default_factory=dict)  # the fake Messages API's every answer
    reason: str = ""  # what the outputs must say about why the model stopped


def load_cases(folder: Path = CASES_DIR) -> list[Case]:
    return read_cases(
        folder, _case, keys=KEYS, families=FAMILIES, skip=lambda path: path.name.startswith("_")
    )


def _case(module: FamilyModule, entry: dict[str, Any]) -> Case:
    return Case(family=module.family, **{**entry, "rules": tuple(entry.get("rules", ()))})
