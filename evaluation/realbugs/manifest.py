"""The manifest of real bugs (`manifest.toml`): read and checked into values."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MANIFEST = Path(__file__).resolve().parent / "manifest.toml"

# key -> type that every [[bug]] must give (non-empty)
REQUIRED: dict[str, type] = {
    "id": str,
    "project": str,
    "buggy": str,
    "fixed": str,
    "source_files": list,
    "test_files": list,
    "failing": list,
    "bug": str,
    "domain": str,
    "kind": list,
}


class ManifestError(ValueError):
    """The manifest cannot be used; the message names the bug and the key."""


@dataclass(frozen=True)
class Deselected:
    test: str  # a pytest node id
    why: str


@dataclass(frozen=True)
class Bug:
    id: str
    project: str  # the PyPI name
    buggy: str  # the release with the bug
    fixed: str  # the release that fixed it
    source_files: tuple[str, ...]  # sdist-relative paths the fix touched
    test_files: tuple[str, ...]  # the visible test files, taken whole from the fixed release
    failing: tuple[str, ...]  # node ids the fix made pass
    bug: str  # what is wrong, in our own words
    domain: str
    kind: tuple[str, ...]
    hidden_files: tuple[str, ...]  # the fixed release's test files run as the hidden check
    deselect: tuple[Deselected, ...]  # visible tests left out, each with why
    ignore_functions: tuple[str, ...]  # changes of the release unrelated to this fix
    # hidden tests of this fix besides `failing` (the fixed release's other fail-to-pass tests in
    # the hidden files are taken for tests of its other changes, and deselected)
    hidden_failing: tuple[str, ...] = ()
    fix_functions: tuple[str, ...] = ()  # when the release changed more: the functions of this fix
    pytest_args: tuple[str, ...] = ()  # e.g. `-o addopts=` where the project's ini needs pytest-cov

    def sdist_name(self, version: str) -> str:
        return f"{self.project}=={version}"


def _paths(bug_id: str, key: str, values: list[str]) -> tuple[str, ...]:
    for value in values:
        path = PurePosixPath(value)
        if path.is_absolute() or ".." in path.parts:
            raise ManifestError(f"bug {bug_id}: {key} names a path outside the sdist: {value!r}")
    return tuple(values)


def parse_bug(entry: dict) -> Bug:
    bug_id = entry.get("id", "?")
    problems = []
    for key, kind in REQUIRED.items():
        value = entry.get(key)
        if not isinstance(value, kind) or not value:
            problems.append(f"{key!r} must be a non-empty {kind.__name__}")
        elif kind is list and not all(isinstance(item, str) and item for item in value):
            problems.append(f"{key!r} must list non-empty strings")
    deselect = entry.get("deselect", [])
    if not isinstance(deselect, list) or not all(
        isinstance(d, dict) and isinstance(d.get("test"), str) and isinstance(d.get("why"), str)
        for d in deselect
    ):
        problems.append("'deselect' must be a list of {test = ..., why = ...}")
    if problems:
        raise ManifestError(f"bug {bug_id}: " + "; ".join(problems))
    return Bug(
        id=entry["id"],
        project=entry["project"],
        buggy=entry["buggy"],
        fixed=entry["fixed"],
        source_files=_paths(bug_id, "source_files", entry["source_files"]),
        test_files=_paths(bug_id, "test_files", entry["test_files"]),
        failing=tuple(entry["failing"]),
        bug=entry["bug"],
        domain=entry["domain"],
        kind=tuple(entry["kind"]),
        hidden_files=_paths(bug_id, "hidden_files", entry.get("hidden_files", entry["test_files"])),
        deselect=tuple(Deselected(d["test"], d["why"]) for d in deselect),
        ignore_functions=tuple(entry.get("ignore_functions", [])),
        pytest_args=tuple(entry.get("pytest_args", [])),
        fix_functions=tuple(entry.get("fix_functions", [])),
        hidden_failing=tuple(entry.get("hidden_failing", [])),
    )


@dataclass(frozen=True)
class Manifest:
    bugs: tuple[Bug, ...]
    subsets: dict[str, tuple[str, ...]]

    def bug(self, bug_id: str) -> Bug:
        for bug in self.bugs:
            if bug.id == bug_id:
                return bug
        raise ManifestError(f"no bug {bug_id!r} in the manifest")


def load_manifest(path: Path = MANIFEST) -> Manifest:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{path}: {exc}") from exc
    bugs = tuple(parse_bug(entry) for entry in data.get("bug", []))
    ids = [bug.id for bug in bugs]
    if len(set(ids)) != len(ids):
        raise ManifestError(f"{path}: a bug id is used twice")
    subsets: dict[str, tuple[str, ...]] = {}
    for name, table in data.get("subsets", {}).items():
        members = table.get("tasks") if isinstance(table, dict) else None
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise ManifestError(f"{path}: [subsets.{name}] needs tasks = [...]")
        unknown = sorted(set(members) - set(ids))
        if unknown:
            raise ManifestError(f"{path}: [subsets.{name}] names unknown bugs: {', '.join(unknown)}")
        subsets[name] = tuple(members)
    return Manifest(bugs, subsets)
