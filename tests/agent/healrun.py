"""One heal's run on a real repository in the local sandbox, for tests of a single step of it
(the baseline, the coverage, the verdict) without the whole loop."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import HealRun
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.sandbox import LocalSandbox


@contextmanager
def heal_run(repo: Path, trace: Trace | None = None) -> Iterator[HealRun]:
    """A HealRun of `repo` on this interpreter; its events go to `trace` (a new one if None)."""
    config = build_config(repo, {"python": sys.executable})
    workspace = Workspace.create(Origin.inspect(repo))
    session = LocalSandbox().start(workspace.root)
    try:
        yield HealRun(config, workspace, session, trace if trace is not None else Trace(), SearchStrategy())
    finally:
        session.close()
        workspace.cleanup()
