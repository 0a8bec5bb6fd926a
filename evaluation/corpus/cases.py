"""A corpus's cases, read from its family modules with `ast`, never imported: evaluation may import
only selfheal's agent and sandbox (DESIGN.md), and some family modules are attack code that runs
only inside a sandbox. Each module holds a `FAMILY` name and a `CASES` list of dicts, both literals.

    read_cases(folder, build, keys=..., families=...)   every module's entries, built into cases,
                                                        in the families' order, ids unique
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar


class CaseError(ValueError):
    pass


class Case(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def family(self) -> str: ...


C = TypeVar("C", bound=Case)


@dataclass(frozen=True)
class FamilyModule:
    path: Path
    tree: ast.Module
    family: str


def literal(tree: ast.Module, name: str, path: Path) -> Any:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            try:
                return ast.literal_eval(node.value)
            except ValueError as exc:
                raise CaseError(f"{path.name}: {name} must be a literal") from exc
    raise CaseError(f"{path.name}: no {name} = ...")


def read_cases(
    folder: Path,
    build: Callable[[FamilyModule, dict[str, Any]], C],
    *,
    keys: Collection[str],
    families: Sequence[str],
    skip: Callable[[Path], bool] = lambda path: False,
    known_families_only: bool = False,
) -> list[C]:
    """`build` makes one case of a module's entry (and raises CaseError where the corpus's own
    rules refuse it); an entry's keys outside `keys` are refused before it is built. Cases come
    sorted by `families` (a family not in it last), each module's in the order it lists them."""
    cases: list[C] = []
    for path in sorted(folder.glob("*.py")):
        if skip(path):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = FamilyModule(path, tree, str(literal(tree, "FAMILY", path)))
        if known_families_only and module.family not in families:
            raise CaseError(f"{path.name}: unknown family {module.family!r}")
        entries = literal(tree, "CASES", path)
        if not isinstance(entries, list):
            raise CaseError(f"{path.name}: CASES must be a list")
        for entry in entries:
            unknown = set(entry) - set(keys)
            if unknown:
                raise CaseError(f"{path.name}: {entry.get('id')}: unknown keys {sorted(unknown)}")
            cases.append(build(module, entry))
    cases.sort(key=lambda c: families.index(c.family) if c.family in families else len(families))
    unique("case ids", [c.id for c in cases])
    return cases


def unique(what: str, values: Iterable[str]) -> None:
    values = list(values)
    if len(values) != len(set(values)):
        raise CaseError(f"duplicate {what}: {sorted({v for v in values if values.count(v) > 1})}")
