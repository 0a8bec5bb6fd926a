"""The corpus's cases, read from the family modules under tests/agent/model/hostile_answers/ with
`ast` (the modules hold only literals: `FAMILY` and `CASES`), as evaluation/escape/ reads its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluation.corpus.cases import CaseError, FamilyModule, read_cases

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "agent" / "model" / "hostile_answers"
FAMILIES = ("outside", "dependencies", "generated-tests", "injection", "malformed")  # the figures' order
ROLES = ("debugger", "generator", "spec_tests", "qa_adversarial", "critic", "memory")
KEYS = {"id", "title", "answers", "files", "symlinks", "issue", "expect", "samples", "quick"}


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    title: str
    answers: dict[str, list[Any]]  # role -> scripted answers (see harness.reply_for)
    expect: dict[str, Any]  # what the heal must decide (see harness.judge)
    files: dict[str, str] = field(default_factory=dict)  # extra or replaced files of the repository
    symlinks: dict[str, str] = field(default_factory=dict)  # path in the repository -> link target
    issue: str = ""  # the issue text the heal is given as context
    samples: int = 2  # generator answers per repair
    # the model's turn only: the generator's scripted answers, then one without an edit that reads
    # the feedback, and no candidate budget left for the search: the heal ends not healed, fast
    quick: bool = False


def load_cases(folder: Path = CASES_DIR) -> list[Case]:
    return read_cases(
        folder,
        _case,
        keys=KEYS,
        families=FAMILIES,
        skip=lambda path: path.name.startswith("_"),
        known_families_only=True,
    )


def _case(module: FamilyModule, entry: dict[str, Any]) -> Case:
    roles = set(entry.get("answers", {})) - set(ROLES)
    if roles:
        raise CaseError(f"{module.path.name}: {entry['id']}: unknown roles {sorted(roles)}")
    return Case(family=module.family, **entry)
