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

from selfheal.agent.events import Event, EventSink, Trace
from selfheal.agent.exceptions import ConfigError, ProviderError
from selfheal.agent.model.answers import AnswerRecord, ask_structured
from selfheal.agent.model.debugger import Debugger, DebugResult
from selfheal.agent.model.generator import GeneratorStrategy
from selfheal.agent.model.llm.accounting import BudgetSpent, MeteredProvider, UsageLedger
from selfheal.agent.model.llm.base import Provider, Usage
from selfheal.agent.model.llm.factory import providers_for_roles
from selfheal.agent.model.llm.settings import ProviderSettings
from selfheal.agent.model.llm.transcript import Transcript
from selfheal.agent.model.memory import Memory
from selfheal.agent.model.prompts import PromptLibrary, takes_hint
from selfheal.agent.model.qa import ModelQA
from selfheal.agent.model.textfit import fit_field
from selfheal.agent.model.toolbox import Toolbox
from selfheal.agent.model.untrusted import for_prompt, hint_for_prompt
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.repair.strategy import Budget, RepairContext, RepairOutcome, ScreenFn

MAX_SOURCE_CHARS = 12_000


@dataclass(frozen=True)
class ModelSetup:
    """Which model plays which role, and how the budget is split between search and model."""

    debugger: Provider
    generator: Provider
    prompts: PromptLibrary = field(default_factory=PromptLibrary)
    spec_tests: Provider | None = None  # None: no spec-blind tests
    qa_adversarial: Provider | None = None  # None: no adversarial tests from a model
    critic: Provider | None = None  # None: a candidate that meets the verdict is not reviewed
    judge: Provider | None = None  # None: where the tests allow several fixes, no model weighs them
    memory: Provider | None = None  # None: lessons are kept without a model
    search_share: float = 0.3  # of the candidate and time budget, for the search first; 0 = off
    min_confidence: float = 0.5  # below it, a diagnosis widens the search instead of steering
    samples: int = 3
    parallel: int = 1  # generator answers requested at once, from different angles; the verdict picks
    debugger_steps: int = 10
    max_tokens: int = 2048  # per answer
    token_budget: int | None = None  # input + output tokens over the whole heal
    usd_budget: float | None = None
    hint: str = ""  # the requester's words (a `/heal` comment, an issue): data for debugger and generator


def setup_for(
    settings: ProviderSettings,
    env: Mapping[str, str] | None = None,
    *,
    token_budget: int | None = None,
    usd_budget: float | None = None,
    parallel: int = 1,
) -> ModelSetup | None:
    """The model setup for the configured settings: one provider per role (`providers_for_roles`:
    a role's override may name another provider, roles that agree share one instance; key, base
    URL and model fall back to `env`, default os.environ). None when no role has a model.

    ConfigError: a provider cannot be built, or some role has a model but the debugger or the
    generator has none (the model-driven repair needs both)."""
    roles = providers_for_roles(settings, env=env)
    if not roles:
        return None
    missing = [role for role in ("debugger", "generator") if role not in roles]
    if missing:
        raise ConfigError(
            f"the model-driven repair needs a model for the debugger and the generator; "
            f"{' and '.join(missing)} {'has' if len(missing) == 1 else 'have'} none (provider none): "
            f"set --provider, or --role {missing[0]}=PROVIDER[:MODEL]"
        )
    return ModelSetup(
        debugger=roles["debugger"],
        generator=roles["generator"],
        spec_tests=roles.get("spec_tests"),
        qa_adversarial=roles.get("qa_adversarial"),
        critic=roles.get("critic"),
        judge=roles.get("judge"),
        memory=roles.get("memory"),
        token_budget=token_budget,
        usd_budget=usd_budget,
        parallel=parallel,
    )


@dataclass(frozen=True)
class Review:
    """The critic's decision on a candidate that meets the verdict."""

    decision: str  # accept | send_back
    reason: str
    concerns: tuple[str, ...] = ()

    @property
    def sent_back(self) -> bool:
        return self.decision == "send_back"


class ModelStrategy:
    name = "model"

    def __init__(
        self,
        setup: ModelSetup,
        toolbox_for: Callable[[RepairContext], Toolbox],
        *,
        known_files: frozenset[str],
        protected: tuple[str, ...],
        events: EventSink | None = None,
        recalled_lessons: tuple[str, ...] = (),  # from earlier heals of this repository
    ) -> None:
        self.setup = setup
        self.events: EventSink = events or Trace()  # where each diagnosis is reported as it ends
        self.toolbox_for = toolbox_for
        self.known_files = known_files
        self.search = SearchStrategy()
        self.ledger = UsageLedger(token_budget=setup.token_budget, usd_budget=setup.usd_budget)
        self.transcript = Transcript()  # what each role was told and answered, for report.html
        self.memory = Memory(self._metered(setup.memory, "memory"), setup.prompts, lessons=recalled_lessons)
        self.lessons = self.memory.render  # the rolling lessons, as the prompts show them
        self.debugger = MeteredProvider(setup.debugger, "debugger", self.ledger, self.transcript)
        self.stopped_because = ""  # why the model stopped early (a budget, a provider failure)
        self._widened = False  # the search already had the whole remaining budget
        self.generator = GeneratorStrategy(
            MeteredProvider(setup.generator, "generator", self.ledger, self.transcript),
            setup.prompts,
            samples=setup.samples,
            max_tokens=setup.max_tokens,
            protected=protected,
            parallel=setup.parallel,
            hint=setup.hint,
        )
        self.diagnoses: list[DebugResult] = []
        self.tool_calls: list[dict] = []
        self.critic = self._metered(setup.critic, "critic")
        self.reviews: list[tuple[Review | None, AnswerRecord]] = []
        self.judge = self._metered(setup.judge, "judge")
        self.qa = ModelQA(
            setup.prompts,
            spec=self._metered(setup.spec_tests, "spec_tests"),
            adversarial=self._metered(setup.qa_adversarial, "qa_adversarial"),
            max_tokens=setup.max_tokens,
        )

    def review(
        self, *, diagnosis: str, patch: str, failing: str, new_tests: str, lessons: str
    ) -> Review | None:
        """The critic's view of a candidate that meets the verdict; None without a critic or
        without a usable answer (the verdict stands either way)."""
        if self.critic is None:
            return None

        def render(tests: str):
            return self.setup.prompts.render(
                "critic", diagnosis=diagnosis, patch=patch[:MAX_SOURCE_CHARS], failing=failing,
                new_tests=tests or "(none)", lessons=lessons or "(none yet)",
            )  # fmt: skip

        schema = self.setup.prompts.get("critic").schema
        room = self.setup.max_tokens
        text = new_tests[:MAX_SOURCE_CHARS]
        tests = fit_field(render, text, self.critic, room, source=False, schema=schema)
        messages = render(tests)
        value, record = ask_structured(
            self.critic, messages, self.setup.prompts.get("critic").schema, max_tokens=self.setup.max_tokens
        )
        review = (
            Review(value["decision"], value["reason"], tuple(value.get("concerns", ())))
            if isinstance(value, dict)
            else None
        )
        self.reviews.append((review, record))
        return review

    def judge_fixes(self, *, code: str, fixes: str, differences: str) -> tuple[int | None, str] | None:
        """Which of several fixes the tests allow the code means: (its number from 1, or None when
        the model cannot tell; the reasons), or None without a judge or a usable answer."""
        if self.judge is None:
            return None
        prompt = self.setup.prompts.get("judge")
        messages = prompt.render(
            code=code[:MAX_SOURCE_CHARS], fixes=fixes[:MAX_SOURCE_CHARS], differences=differences
        )
        value, _ = ask_structured(self.judge, messages, prompt.schema, max_tokens=self.setup.max_tokens)
        if not isinstance(value, dict):
            return None
        preferred = value.get("preferred")
        return (preferred if isinstance(preferred, int) else None), str(value["reasons"])

    def revise(
        self, context: RepairContext, screen: ScreenFn, budget: Budget, review: Review
    ) -> RepairOutcome:
        """One more repair from the generator, told why the critic sent the last patch back."""
        diagnosis = next((d.diagnosis for d in reversed(self.diagnoses) if d.diagnosis is not None), None)
        feedback = (
            "A reviewer sent your previous patch back, although it passed the tests: "
            f"{review.reason}\nWrite new blocks against the original file."
        )
        return self.generator.repair(
            context, screen, budget, diagnosis=diagnosis, feedback=feedback, lessons=self.lessons()
        )

    def _metered(self, provider: Provider | None, role: str) -> Provider | None:
        return MeteredProvider(provider, role, self.ledger, self.transcript) if provider is not None else None

    @property
    def usage(self) -> Usage:
        return self.ledger.total

    def repair(self, context: RepairContext, screen: ScreenFn, budget: Budget) -> RepairOutcome:
        diagnosed, answered = len(self.diagnoses), self.generator.log.answers
        outcome = self._repair(context, screen, budget)
        if len(self.diagnoses) > diagnosed or self.generator.log.answers > answered:
            self.remember(outcome, self.diagnoses[diagnosed:])
        return outcome

    def remember(self, outcome: RepairOutcome, diagnoses: list[DebugResult]) -> None:
        """The round's facts into the rolling lessons the next prompts show."""
        facts = []
        for debug in diagnoses:
            d = debug.diagnosis
            if d is not None:
                facts.append(f"diagnosis: {d.root_cause} ({d.file}:{d.line}, confidence {d.confidence:.2f})")
        for screening in outcome.ruled_out[:3]:
            said = [f"tried {screening.candidate.description}"]
            if screening.still_failing:
                said.append(f"still failing {sorted(screening.still_failing)[0]}")
            if screening.broken:
                said.append(f"broke {sorted(screening.broken)[0]}")
            facts.append("; ".join(said))
        facts += [f"an edit did not apply: {problem}" for problem in self.generator.log.problems[-2:]]
        if outcome.plausible:
            facts.append(f"passed screening: {outcome.plausible[0].candidate.description}")
        started = time.time()
        self.memory.update(facts)
        self.events.emit(Event("memory", started, time.time(), {**self.memory.trace(), "facts": len(facts)}))

    def _repair(self, context: RepairContext, screen: ScreenFn, budget: Budget) -> RepairOutcome:
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
        found = RepairOutcome()
        try:
            self.generator.repair(
                context, screen, budget, diagnosis=diagnosis, lessons=self.lessons(), into=found
            )
        finally:
            _merge(outcome, found)  # what it screened before a provider failure counts too
        return bool(found.plausible)

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
        started = time.time()
        takes = takes_hint(self.setup.prompts, "debugger")
        hint = {"hint": hint_for_prompt(self.setup.hint)} if takes else {}
        try:
            return debugger.run(
                failing=self._failing(context),
                suspects=self._suspects(context),
                source=self._source(context),
                lessons=self.lessons(),
                **hint,
            )
        except (BudgetSpent, ProviderError) as exc:
            debugger.result.degraded = True
            debugger.result.stopped_because = f"interrupted: {exc}"
            raise
        finally:
            # also when the model stopped mid-investigation: its steps and calls count
            debug = debugger.result
            self.diagnoses.append(debug)
            self.tool_calls.extend(record.as_dict() for record in toolbox.log)
            self.events.emit(Event("debugger", started, time.time(), {
                "steps": debug.steps, "tool_calls": debug.tool_calls, "degraded": debug.degraded,
                "stopped_because": debug.stopped_because, "salvage": list(debug.salvage),
                "prompt": self.setup.prompts.get("debugger").trace(),
                "tokens_in": debug.usage.tokens_in, "tokens_out": debug.usage.tokens_out,
                "cost_usd": debug.usage.cost_usd,
                "tools": [record.as_dict() for record in toolbox.log],
            }))  # fmt: skip

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
            said = for_prompt(context.baseline_messages.get(test) or "", 600, normalize=False)
            lines.append(
                f"{for_prompt(test, normalize=False)}\n{said}" if said else for_prompt(test, normalize=False)
            )
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
