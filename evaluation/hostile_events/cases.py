"""The corpus's cases, read from tests/action/hostile_events/*.py with `ast`, without importing them."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from evaluation.corpus.cases import CaseError, FamilyModule, read_cases, unique

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "action" / "hostile_events"
FAMILIES = ("look-alikes", "placement", "arguments", "size", "authors", "forks", "branches", "settings")
DECISIONS = ("heal", "ignore", "refuse")
EVENTS = ("issue_comment", "workflow_run")


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    expect: str  # heal | ignore | refuse
    event: str = "issue_comment"
    body: str = ""  # the comment; {marker}, {mega} (1 MiB of text) and {long} (200 000 chars) expand
    login: str | None = "alice"  # None: "user": null, as for a deleted account
    user_type: str = ""  # overrides the author's type (e.g. Bot)
    number: int = 7  # the conversation: 7 a PR of the repository, 8 a fork's PR, 3 an issue
    branch: str = ""  # a branch of the case's own (its PR's head, or the red run's branch)
    branch_from: str = ""  # main (the bug), green (all tests pass)
    head_repo: str = ""  # the head's repository when it is a fork
    head_deleted: bool = False  # the red run's head repository is null, as GitHub sends for a deleted fork
    files: str = ""  # a named file set committed on the branch (tests/action/hostile_world.py)
    pyproject: str = ""  # lines for the branch's [tool.selfheal]
    status: str = ""  # the exact outcome status expected, where it matters
    reply: str = ""  # text the reply comment or the job summary must hold
    pr: bool = False  # a pull request is expected


KEYS = {f.name for f in fields(Case)}


def load_cases(folder: Path = CASES_DIR) -> list[Case]:
    cases = read_cases(folder, _case, keys=KEYS, families=FAMILIES)
    unique("branches", [c.branch for c in cases if c.branch])
    return cases


def _case(module: FamilyModule, entry: dict[str, Any]) -> Case:
    case = Case(**{"family": module.family, **entry})
    if case.expect not in DECISIONS or case.event not in EVENTS or case.family not in FAMILIES:
        raise CaseError(f"{module.path.name}: {case.id}: expect, event or family is not one of ours")
    return case
