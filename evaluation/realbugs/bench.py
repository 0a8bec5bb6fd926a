"""The real-bug suite for `selfheal bench --suite realbugs`: build what the run needs, hand the
runner the built tasks, and record a bug whose sdist could not be downloaded as `unavailable`."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from evaluation.bench.record import TaskRun, failed_run
from evaluation.bench.tasks import Task
from evaluation.realbugs.build import UNAVAILABLE
from evaluation.realbugs.manifest import Bug, ManifestError, load_manifest
from evaluation.realbugs.sdist import SdistCache, default_cache
from evaluation.realbugs.suite import build_suite, counts, tasks_dir

UNAVAILABLE_STATUS = "unavailable"
DEFAULT_SUBSET = "realbugs-smoke"
FULL = "full"


@dataclass(frozen=True)
class PreparedSuite:
    tasks_dir: Path
    unavailable: tuple[TaskRun, ...]  # records for the bugs that could not be built here


def prepare(subset: str, ids: list[str] | None, cache_root: Path | None = None) -> PreparedSuite:
    """Builds (or reuses) the tasks of `subset` / `ids`; progress goes to stderr."""
    manifest = load_manifest()
    if ids:
        bugs = [manifest.bug(i) for i in ids]
    elif subset == FULL:
        bugs = list(manifest.bugs)
    elif subset in manifest.subsets:
        bugs = [manifest.bug(i) for i in manifest.subsets[subset]]
    else:
        raise ManifestError(
            f"unknown realbugs subset {subset!r}; subsets: full, {', '.join(manifest.subsets)}"
        )
    cache = SdistCache((cache_root or default_cache()).expanduser())
    outcomes = build_suite(manifest, cache, bugs, report=lambda o: _say(f"realbugs: {o.describe()}"))
    _say(f"realbugs: {counts(outcomes, bugs)}")
    by_id = {bug.id: bug for bug in bugs}
    unavailable = tuple(
        failed_run(_placeholder(by_id[o.id], tasks_dir(cache)), UNAVAILABLE_STATUS, o.why, 0.0)
        for o in outcomes
        if o.state == UNAVAILABLE
    )
    return PreparedSuite(tasks_dir(cache), unavailable)


def _placeholder(bug: Bug, folder: Path) -> Task:
    """The task a bug would have been, to report it: nothing was built."""
    return Task(
        id=bug.id, category=bug.project, difficulty="unknown", summary=bug.bug, bug=bug.bug,
        kind=bug.kind, test_command="", visible_failing=bug.failing, folder=folder / bug.id,
    )  # fmt: skip


def _say(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
