"""The corpus's cases, read from the family modules under tests/agent/model/hostile_answers/ with
`ast` (the modules hold only literals: `FAMILY` and `CASES`), as evaluation/escape/ reads its own."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "agent" / "model" / "hostile_answers"
FAMILIES = ("outside", "dependencies", "generated-tests", "injection", "malformed")  # the figures' order
ROLES = ("debugger", "generator", "spec_tests", "qa_adversarial", "critic", "memory")
KEYS = {"id", "title", "answers", "files", "symlinks", "issue", "expect", "samples", "quick"}


class CaseError(ValueError):
    pass


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


def _literal(tree: ast.Module, name: str, path: Path) -> object:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            try:
                return ast.literal_eval(node.value)
            except ValueError as exc:
                raise CaseError(f"{path.name}: {name} must be a literal") from exc
    raise CaseError(f"{path.name}: no {name} = ...")


def load_cases(folder: Path = CASES_DIR) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        family = str(_literal(tree, "FAMILY", path))
        if family not in FAMILIES:
            raise CaseError(f"{path.name}: unknown family {family!r}")
        for entry in _literal(tree, "CASES", path):  # type: ignore[union-attr]
            unknown = set(entry) - KEYS
            if unknown:
                raise CaseError(f"{path.name}: {entry.get('id')}: unknown keys {sorted(unknown)}")
            roles = set(entry.get("answers", {})) - set(ROLES)
            if roles:
                raise CaseError(f"{path.name}: {entry['id']}: unknown roles {sorted(roles)}")
            cases.append(Case(family=family, **entry))
    cases.sort(key=lambda c: FAMILIES.index(c.family))
    ids = [c.id for c in cases]
    if len(ids) != len(set(ids)):
        raise CaseError(f"duplicate case ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    return cases
