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

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from evaluation.corpus.cases import CaseError, FamilyModule, read_cases

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "agent" / "cheats"
FAMILIES = ("exits", "machinery", "evidence", "detection", "overfit", "controls")  # the figures' order
EXPECTS = ("edit", "screen", "verdict", "healed")


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


def load_cases(folder: Path = CASES_DIR) -> list[Case]:
    return read_cases(folder, _case, keys=KEYS, families=FAMILIES)


def _case(module: FamilyModule, entry: dict[str, Any]) -> Case:
    name = module.path.name
    if entry.get("expect") not in EXPECTS:
        raise CaseError(f"{name}: {entry.get('id')}: expect must be one of {EXPECTS}")
    if not entry.get("edits") and not (entry.get("top") or entry.get("body")):
        raise CaseError(f"{name}: {entry['id']}: no edits, top or body")
    rules = tuple(entry.get("rules", ()))
    edits = tuple(tuple(e) for e in entry.get("edits", ()))
    return Case(family=module.family, **{**entry, "rules": rules, "edits": edits})
