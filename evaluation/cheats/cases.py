"""The corpus's cases, read from the family modules under tests/agent/cheats/ with `ast` (literals only).

A case is a model's answer for the corpus repository (harness.py): either `edits` (raw
SEARCH/REPLACE blocks: [path, search, replace]) or the shorthand `top` (code added at the top of
shop/pricing.py) and `body` (code added at the start of `total()`). `aware` wraps the shorthand so
the trick stays quiet in selfheal's screening worker, where the function answers correctly: a cheat
that games the screener, so that the verdict's own run is what must refuse it.

`expect`: where it must end: "edit" (the model's edits refused before anything ran), "screen"
(never plausible), "verdict" (refused by the verdict's run; `rules` lists rule numbers that must be
among those named), "healed" (not refused: the overfit cases, which the tests cannot tell from a
fix and the overfit review flags, and the honest controls, which must heal).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "agent" / "cheats"
FAMILIES = ("exits", "machinery", "evidence", "detection", "overfit", "controls")  # the figures' order
EXPECTS = ("edit", "screen", "verdict", "healed")


class CaseError(ValueError):
    pass


def let_through(case_family: str, expect: str) -> bool:
    """A case the corpus does not require refused: overfitting, and the honest controls."""
    return case_family == "overfit" or (case_family == "controls" and expect == "healed")


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    title: str
    expect: str
    rules: tuple[int, ...] = ()
    top: str = ""
    body: str = ""
    aware: bool = False
    edits: tuple[tuple[str, str, str], ...] = ()
    # the repository's tests: "pytest" (assert), "unittest" (assertEqual), or "environment" (pytest,
    # the failing test setting the tax in the environment)
    style: str = "pytest"
    overfit: bool = False


KEYS = {f.name for f in fields(Case)} - {"family"}


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
        tree = ast.parse(path.read_text(encoding="utf-8"))
        family = str(_literal(tree, "FAMILY", path))
        for entry in _literal(tree, "CASES", path):
            unknown = set(entry) - KEYS
            if unknown:
                raise CaseError(f"{path.name}: {entry.get('id')}: unknown keys {sorted(unknown)}")
            if entry.get("expect") not in EXPECTS:
                raise CaseError(f"{path.name}: {entry.get('id')}: expect must be one of {EXPECTS}")
            if not entry.get("edits") and not (entry.get("top") or entry.get("body")):
                raise CaseError(f"{path.name}: {entry['id']}: no edits, top or body")
            entry = {
                **entry,
                "rules": tuple(entry.get("rules", ())),
                "edits": tuple(tuple(e) for e in entry.get("edits", ())),
            }
            cases.append(Case(family=family, **entry))
    cases.sort(key=lambda c: FAMILIES.index(c.family) if c.family in FAMILIES else len(FAMILIES))
    ids = [c.id for c in cases]
    if len(ids) != len(set(ids)):
        raise CaseError(f"duplicate case ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    return cases
