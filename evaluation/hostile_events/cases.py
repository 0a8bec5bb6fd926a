"""The corpus's cases, read from tests/action/hostile_events/*.py with `ast`, without importing them."""

from __future__ import annotations

import ast
from dataclasses import dataclass, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "action" / "hostile_events"
FAMILIES = ("look-alikes", "placement", "arguments", "size", "authors", "forks", "branches", "settings")
DECISIONS = ("heal", "ignore", "refuse")
EVENTS = ("issue_comment", "workflow_run")


class CaseError(ValueError):
    pass


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
        entries = _literal(tree, "CASES", path)
        if not isinstance(entries, list):
            raise CaseError(f"{path.name}: CASES must be a list")
        for entry in entries:
            unknown = set(entry) - KEYS
            if unknown:
                raise CaseError(f"{path.name}: {entry.get('id')}: unknown keys {sorted(unknown)}")
            case = Case(**{"family": family, **entry})
            if case.expect not in DECISIONS or case.event not in EVENTS or case.family not in FAMILIES:
                raise CaseError(f"{path.name}: {case.id}: expect, event or family is not one of ours")
            cases.append(case)
    cases.sort(key=lambda c: FAMILIES.index(c.family))
    for what, values in (
        ("case ids", [c.id for c in cases]),
        ("branches", [c.branch for c in cases if c.branch]),
    ):
        if len(values) != len(set(values)):
            raise CaseError(f"duplicate {what}: {sorted({v for v in values if values.count(v) > 1})}")
    return cases
