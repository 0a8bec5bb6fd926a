"""The model-driven repair: search first, then a ReAct diagnosis, then the model's repair.

    ModelStrategy.repair(context, screen, budget):
        search engine (a share of the budget)        -> plausible? done
        debugger (ReAct, tools)                      -> Diagnosis | None
        low confidence or no diagnosis               -> widen: the search with what is left
        generator (edit blocks from the diagnosis)   -> candidates screened like any other
        no plausible model candidate                 -> fall back: the search with what is left

Every candidate, whoever made it, goes through the same screening and then the same verdict.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from selfheal.agent.debugger import Debugger, DebugResult
from selfheal.agent.exceptions import ProviderError
from selfheal.agent.llm.accounting import BudgetSpent, MeteredProvider, UsageLedger
from selfheal.agent.llm.base import Provider, Usage
from selfheal.agent.llm.factory import providers_for_roles
from selfheal.agent.llm.settings import ProviderSettings
from selfheal.agent.prompts import PromptLibrary
from selfheal.agent.repair import Budget, RepairContext, RepairOutcome, ScreenFn
from selfheal.agent.repair.generator import GeneratorStrategy
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.toolbox import Toolbox

MAX_SOURCE_CHARS = 12_000


@dataclass(frozen=True)
class ModelSetup:
    """Which model plays which role, and how the budget is split between search and model."""

    debugger: Provider
    generator: Provider
    prompts: PromptLibrary = field(default_factory=PromptLibrary)
    search_share: float = 0.3  # of the candidate and time budget, for the search first; 0 = off
    min_confidence: float = 0.5  # below it, a diagnosis widens the search instead of steering
    samples: int = 3
    debugger_steps: int = 10
    max_tokens: int = 2048  # per answer
    token_budget: int | None = None  # input + output tokens over the whole heal
    usd_budget: float | None = None


def setup_for(
    provider: str,
    env: Mapping[str, str] | None = None,
    *,
    token_budget: int | None = None,
    usd_budget: float | None = None,
) -> ModelSetup | None:
    """The model setup for a configured provider (settings from the environment: key, base URL,
    model), or None for "none". Raises ConfigError when the provider cannot be built."""
    if provider == "none":
        return None
    roles = providers_for_roles(ProviderSettings(provider=provider), env=env)
    return ModelSetup(
        debugger=roles["debugger"],
        generator=roles["generator"],
        token_budget=token_budget,
        usd_budget=usd_budget,
    )


class ModelStrategy:
    name = "model"

    def __init__(
        self,
        setup: ModelSetup,
        toolbox_for: Callable[[RepairContext], Toolbox],
        *,
        known_files: frozenset[str],
        protected: tuple[str, ...],
    ) -> None:
        self.setup = setup
        self.toolbox_for = toolbox_for
        self.known_files = known_files
        self.search = SearchStrategy()
        self.ledger = UsageLedger(token_budget=setup.token_budget, usd_budget=setup.usd_budget)
        self.debugger = MeteredProvider(setup.debugger, "debugger", self.ledger)
        self.stopped_because = ""  # why the model stopped early (a budget, a provider failure)
        self._widened = False  # the search already had the whole remaining budget
        self.generator = GeneratorStrategy(
            MeteredProvider(setup.generator, "generator", self.ledger),
            setup.prompts,
            samples=setup.samples,
            max_tokens=setup.max_tokens,
            protected=protected,
        )
        self.diagnoses: list[DebugResult] = []
        self.tool_calls: list[dict] = []

    @property
    def usage(self) -> Usage:
        return self.ledger.total

    def repair(self, context: RepairContext, screen: ScreenFn, budget: Budget) -> RepairOutcome:
        outcome = RepairOutcome()
        share = self.setup.search_share
        if share > 0 and _merge(outcome, self._search(context, screen, budget, share)).plausible:
            return outcome
        try:
            if self._model_repair(context, screen, budget, outcome):
                return outcome
        except (BudgetSpent, ProviderError) as exc:
            # the model is out (budget, or the API after the SDK's retries): keep what it found,
            # let the search use what is left, and say why in the report
            self.stopped_because = f"model stopped: {exc}"
        if not self._widened:
            _merge(outcome, self._search(context, screen, budget, 1.0))
        if self.stopped_because:
            outcome.stopped_because = self.stopped_because
        return outcome

    def _model_repair(
        self, context: RepairContext, screen: ScreenFn, budget: Budget, outcome: RepairOutcome
    ) -> bool:
        """True when the model (or the widened search) found a plausible repair."""
        diagnosis = self.diagnose(context).diagnosis
        unsure = diagnosis is None or diagnosis.confidence < self.setup.min_confidence
        # not sure where the bug is: a targeted repair would guess, so the search explores first
        if unsure:
            self._widened = True
            if _merge(outcome, self._search(context, screen, budget, 1.0)).plausible:
                return True
        return bool(
            _merge(outcome, self.generator.repair(context, screen, budget, diagnosis=diagnosis)).plausible
        )

    def diagnose(self, context: RepairContext) -> DebugResult:
        toolbox = self.toolbox_for(context)
        debugger = Debugger(
            self.debugger,
            self.setup.prompts,
            toolbox,
            max_steps=self.setup.debugger_steps,
            max_tokens=self.setup.max_tokens,
            known_files=self.known_files,
        )
        try:
            return debugger.run(
                failing=self._failing(context),
                suspects=self._suspects(context),
                source=self._source(context),
                lessons="(none yet)",
            )
        except (BudgetSpent, ProviderError) as exc:
            debugger.result.degraded = True
            debugger.result.stopped_because = f"interrupted: {exc}"
            raise
        finally:
            # also when the model stopped mid-investigation: its steps and calls count
            self.diagnoses.append(debugger.result)
            self.tool_calls.extend(record.as_dict() for record in toolbox.log)

    def _search(
        self, context: RepairContext, screen: ScreenFn, budget: Budget, share: float
    ) -> RepairOutcome:
        left = budget.max_candidates - budget.spent
        seconds = max(budget.deadline - time.monotonic(), 0.0)
        if left <= 0 or seconds <= 0:
            return RepairOutcome(stopped_because=budget.reason)
        part = Budget(max(1, int(left * share)), seconds * share)
        found = self.search.repair(context, screen, part)
        budget.spent += part.spent
        return found

    @staticmethod
    def _failing(context: RepairContext) -> str:
        lines = []
        for test in context.targets[:10]:
            said = (context.baseline_messages.get(test) or "").strip()
            lines.append(f"{test}\n{said[:600]}" if said else test)
        return "\n\n".join(lines)

    @staticmethod
    def _suspects(context: RepairContext) -> str:
        return "\n".join(
            f"{s.file}:{s.line} (score {s.score:.2f})" for s in context.localization.top_lines(limit=10)
        )

    @staticmethod
    def _source(context: RepairContext) -> str:
        targets = context.localization.targets
        files = list(dict.fromkeys(t.file for t in targets[:2])) or sorted(context.sources)[:1]
        parts = [f"# {path}\n{context.sources.get(path, '')}" for path in files]
        return "\n\n".join(parts)[:MAX_SOURCE_CHARS]


def _merge(into: RepairOutcome, found: RepairOutcome) -> RepairOutcome:
    into.plausible.extend(found.plausible)
    into.tried += found.tried
    for family, count in found.families_tried.items():
        into.families_tried[family] = into.families_tried.get(family, 0) + count
    into.ruled_out.extend(found.ruled_out)
    if found.partial is not None and (
        into.partial is None or len(found.partial.fixed) > len(into.partial.fixed)
    ):
        into.partial = found.partial
    into.stopped_because = found.stopped_because or into.stopped_because
    return found
