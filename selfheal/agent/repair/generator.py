"""The model's repair: edit blocks written from a diagnosis, screened like any other candidate.

    GeneratorStrategy(provider, prompts).repair(context, screen, budget, diagnosis) -> RepairOutcome

Each sample is one model answer. An answer whose blocks do not apply, or whose candidate does not
pass screening, is fed back (what did not match, which tests still fail or broke) for the next
sample: the model repairs its own attempt instead of starting over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from selfheal.agent.config import DEFAULT_PROTECTED
from selfheal.agent.debugger import Diagnosis
from selfheal.agent.editblocks import edits_from_answer
from selfheal.agent.llm.base import Provider, Usage
from selfheal.agent.prompts import PromptLibrary
from selfheal.agent.repair import Budget, RepairContext, RepairOutcome, ScreenFn, Screening

ROLE = "generator"
MAX_SOURCE_CHARS = 16_000


@dataclass
class GeneratorLog:
    answers: int = 0
    not_applied: int = 0  # answers whose blocks did not apply (degraded steps)
    screened: int = 0
    usage: Usage = field(default_factory=Usage)
    problems: list[str] = field(default_factory=list)


class GeneratorStrategy:
    name = "generator"

    def __init__(
        self,
        provider: Provider,
        prompts: PromptLibrary,
        *,
        samples: int = 3,
        max_tokens: int = 2048,
        protected: tuple[str, ...] = DEFAULT_PROTECTED,
    ) -> None:
        self.provider = provider
        self.prompts = prompts
        self.samples = samples
        self.max_tokens = max_tokens
        self.protected = protected
        self.log = GeneratorLog()

    def repair(
        self,
        context: RepairContext,
        screen: ScreenFn,
        budget: Budget,
        diagnosis: Diagnosis | None = None,
        lessons: str = "",
        feedback: str = "(first attempt)",
    ) -> RepairOutcome:
        outcome = RepairOutcome()
        file, function, cause = self._focus(context, diagnosis)
        for _ in range(self.samples):
            if not budget.take():
                outcome.stopped_because = budget.reason
                break
            messages = self.prompts.render(
                ROLE,
                diagnosis=cause,
                file=file,
                function=function,
                source=context.sources.get(file, "")[:MAX_SOURCE_CHARS],
                failing=self._failing(context),
                lessons=lessons or "(none)",
                feedback=feedback,
            )
            reply = self.provider.complete(messages, max_tokens=self.max_tokens)
            self.log.answers += 1
            self.log.usage = self.log.usage + reply.usage
            outcome.tried += 1
            outcome.families_tried["generator"] = outcome.families_tried.get("generator", 0) + 1
            edits = edits_from_answer(reply.text, context.sources, protected=self.protected)
            if not edits.ok:
                self.log.not_applied += 1
                self.log.problems.extend(edits.problems)
                feedback = edits.feedback()
                continue
            summary = reply.text.strip().splitlines()[0][:160] if reply.text.strip() else "model edit"
            screening = screen(edits.candidate(summary, strategy="generator"))
            self.log.screened += 1
            if screening.plausible:
                outcome.plausible.append(screening)
                break
            if screening.improving and (
                outcome.partial is None or len(screening.fixed) > len(outcome.partial.fixed)
            ):
                outcome.partial = screening
            outcome.ruled_out.append(screening)
            feedback = self._screening_feedback(screening)
        return outcome

    def _focus(self, context: RepairContext, diagnosis: Diagnosis | None) -> tuple[str, str, str]:
        if diagnosis is not None and diagnosis.file in context.sources:
            cause = (
                f"{diagnosis.root_cause}\nLocation: {diagnosis.file}:{diagnosis.line} in {diagnosis.function}"
            )
            return diagnosis.file, diagnosis.function, f"{cause}\nStrategy: {diagnosis.strategy}"
        targets = context.localization.targets
        if targets:
            top = targets[0]
            return (
                top.file,
                top.function,
                (
                    f"No confirmed diagnosis. The most suspicious function by spectrum analysis is "
                    f"{top.function} in {top.file} (line {top.line})."
                ),
            )
        first = sorted(context.sources)[0] if context.sources else ""
        return first, "", "No diagnosis and no suspicious function."

    @staticmethod
    def _failing(context: RepairContext) -> str:
        lines = []
        for test in context.targets[:10]:
            message = (context.baseline_messages.get(test) or "").strip().splitlines()
            lines.append(f"{test}: {message[0][:200] if message else 'failed'}")
        return "\n".join(lines)

    @staticmethod
    def _screening_feedback(screening: Screening) -> str:
        parts = ["Your previous edit applied, but the tests say:"]
        if screening.error:
            parts.append(f"- the run failed: {screening.error[:300]}")
        for test in sorted(screening.still_failing)[:5]:
            said = (screening.messages.get(test) or "").strip().splitlines()
            parts.append(f"- still failing: {test}" + (f" ({said[0][:160]})" if said else ""))
        for test in sorted(screening.broken)[:5]:
            said = (screening.messages.get(test) or "").strip().splitlines()
            parts.append(f"- newly broken: {test}" + (f" ({said[0][:160]})" if said else ""))
        parts.append("Write new blocks against the original file (your previous edit was not kept).")
        return "\n".join(parts)
