"""The built suite: every manifest bug built into the cache's tasks folder, with subsets.toml."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evaluation.realbugs.build import REPRODUCED, Outcome, build_bug
from evaluation.realbugs.manifest import Bug, Manifest
from evaluation.realbugs.sdist import SdistCache


def tasks_dir(cache: SdistCache) -> Path:
    return cache.root / "tasks"


def build_suite(
    manifest: Manifest, cache: SdistCache, bugs: Iterable[Bug], *, jobs: int = 2, rebuild: bool = False,
    report: Callable[[Outcome], None] = lambda outcome: None,
) -> list[Outcome]:  # fmt: skip
    """Builds `bugs` (in order), reports each as it finishes, and writes subsets.toml naming the
    reproduced tasks of every manifest subset (a task that did not reproduce is not benchmarked)."""
    folder = tasks_dir(cache)
    folder.mkdir(parents=True, exist_ok=True)

    def one(bug: Bug) -> Outcome:
        outcome = build_bug(bug, cache, folder, rebuild=rebuild)
        report(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = list(pool.map(one, bugs))
    write_subsets(manifest, folder)
    return outcomes


def reproduced_ids(folder: Path) -> list[str]:
    return sorted(p.parent.name for p in folder.glob("*/task.toml"))


def write_subsets(manifest: Manifest, folder: Path) -> None:
    built = set(reproduced_ids(folder))
    lines = ["# written by python -m evaluation.realbugs: the reproduced tasks of each subset\n"]
    subsets = {"full": tuple(b.id for b in manifest.bugs), **manifest.subsets}
    for name, ids in subsets.items():
        members = [i for i in ids if i in built]
        if members:
            lines.append(
                f"[{name}]\ntasks = [{', '.join(repr(i).replace(chr(39), chr(34)) for i in members)}]\n"
            )
    (folder / "subsets.toml").write_text("\n".join(lines), encoding="utf-8")


def counts(outcomes: list[Outcome], bugs: Iterable[Bug]) -> str:
    project = {bug.id: bug.project for bug in bugs}
    reproduced = [o for o in outcomes if o.state == REPRODUCED]
    projects = {project[o.id] for o in reproduced}
    others = {state: sum(o.state == state for o in outcomes) for state in ("excluded", "unavailable")}
    return (
        f"{len(reproduced)} reproduced task(s) from {len(projects)} project(s); "
        f"{others['excluded']} excluded, {others['unavailable']} unavailable"
    )
