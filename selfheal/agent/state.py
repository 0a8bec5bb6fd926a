"""What the steps of one heal share: its inputs, its sandbox session, and the result being built.

`HealState` is made once by `loop.HealRun` and handed to the steps before the repair (`prepare`),
the repair rounds (`rounds`) and the steps after it (`fixchoice`, `postrepair`, `modelrounds`,
`modelrecord`); each step writes what it found into `result`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from selfheal.agent.config import HealConfig
from selfheal.agent.events import EventSink
from selfheal.agent.exceptions import ProviderError, WorkspaceError
from selfheal.agent.model.llm.accounting import BudgetSpent
from selfheal.agent.model.strategy import ModelStrategy
from selfheal.agent.probing import BehaviourProbes
from selfheal.agent.repair.edits import Candidate
from selfheal.agent.repair.recalled import RecalledOrder
from selfheal.agent.repair.strategy import RepairStrategy
from selfheal.agent.report.result import HealResult
from selfheal.agent.run.freshtree import FreshTree
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.workspace import Workspace
from selfheal.sandbox import Session

MAX_TEST_FILES_READ = 60  # existing test files the edge-case inputs are read from


def is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


@dataclass
class HealState:
    config: HealConfig
    workspace: Workspace
    session: Session
    events: EventSink
    python: str
    runner: TestRunner
    sources: dict[str, str]  # the project's source files as they were, path -> text
    result: HealResult
    strategy: RepairStrategy
    # failure messages of the target tests as the screener reports them, for the model's context
    baseline_messages: dict[str, str] = field(default_factory=dict)
    # files of the workspace the suite's own baseline run created, changed or deleted (a log, a
    # snapshot, a database): a validation run that writes them again did nothing the suite does not
    suite_writes: frozenset[str] = frozenset()
    # what earlier heals of this repository say about where to search first (empty: memory off)
    recalled_order: RecalledOrder = field(default_factory=RecalledOrder)
    # the tree every deciding run starts from, the base as it stood before the baseline ran (set by
    # the baseline step): the verdict's runs and the proof of new tests see nothing else
    tree: FreshTree | None = None

    def fresh_tree(self) -> FreshTree:
        if self.tree is None:  # a deciding run before the baseline: the tree as it is now is the base
            self.tree = FreshTree.for_workspace(
                self.session, self.python, self.workspace, self.runner.fingerprint()
            )
        return self.tree

    _probes: BehaviourProbes | None = field(default=None, repr=False)

    @property
    def probes(self) -> BehaviourProbes:
        """The changed functions' generated inputs on versions of the code, each run once per heal
        (the preference and the comparison of plausible patches share them)."""
        if self._probes is None:
            self._probes = BehaviourProbes(
                self.session, self.python, self.base_text, self.existing_test_texts,
                source_dirs=self.runner.source_dirs, seed=self.config.seed,
            )  # fmt: skip
        return self._probes

    def existing_test_texts(self) -> dict[str, str]:
        """The repository's test files at the base, path -> text (at most MAX_TEST_FILES_READ):
        where the edge-case inputs find the values the project itself calls its code with."""
        texts: dict[str, str] = {}
        for path in [p for p in self.workspace.files if is_test_file(p)][:MAX_TEST_FILES_READ]:
            try:
                texts[path] = self.workspace.base_text(path)
            except (WorkspaceError, UnicodeDecodeError):
                continue
        return texts

    @property
    def model(self) -> ModelStrategy | None:
        """The model's strategy, when a model repairs."""
        return self.strategy if isinstance(self.strategy, ModelStrategy) else None

    def base_text(self, path: str) -> str:
        """Base version of any file of the workspace (a candidate may touch non-source files)."""
        return self.sources[path] if path in self.sources else self.workspace.base_text(path)

    def base_texts_of(self, candidate: Candidate) -> dict[str, str]:
        return {**self.sources, **{e.file: self.base_text(e.file) for e in candidate.edits}}

    def model_step(self, step: Callable[[], object]) -> None:
        """A model step outside the repair strategy: a spent budget or a provider failure ends the
        model's part with the reason, never the heal."""
        try:
            step()
        except (BudgetSpent, ProviderError) as exc:
            self.model_stopped(exc)

    def model_stopped(self, exc: Exception) -> None:
        if self.model is not None and not self.model.stopped_because:
            self.model.stopped_because = f"model stopped: {exc}"

    def finish(self, status: str, *, error: str | None = None) -> HealResult:
        self.result.status = status
        self.result.error = error
        self.result.metrics.test_runs = self.runner.runs
        return self.result


_KEPT = ("verdict", "after", "changes", "base_texts", "patch", "fixes", "tests", "test_files")


def snapshot(result: HealResult) -> dict:
    """The parts of a result a tried patch changes, to put back when it does not stand."""
    return {name: getattr(result, name) for name in _KEPT}


def restore(result: HealResult, kept: dict) -> None:
    for name, value in kept.items():
        setattr(result, name, value)
