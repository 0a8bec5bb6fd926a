"""The model's repair: edit blocks written from a diagnosis, screened like any other candidate.

    GeneratorStrategy(provider, prompts).repair(context, screen, budget, diagnosis) -> RepairOutcome

Each sample is one model answer. An answer whose blocks do not apply, or whose candidate does not
pass screening, is fed back (what did not match, which tests still fail or broke) for the next
sample: the model repairs its own attempt instead of starting over.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from selfheal.agent.config import DEFAULT_PROTECTED
from selfheal.agent.model.debugger import Diagnosis
from selfheal.agent.model.editapply import edits_from_answer
from selfheal.agent.model.llm.base import Provider, Usage
from selfheal.agent.model.prompts import PromptLibrary, takes_hint
from selfheal.agent.model.textfit import fit_field
from selfheal.agent.model.untrusted import for_prompt, hint_for_prompt
from selfheal.agent.repair.bypass import bypassed_functions
from selfheal.agent.repair.edits import Candidate, apply_edits
from selfheal.agent.repair.overfit import overfit_risks
from selfheal.agent.repair.strategy import Budget, RepairContext, RepairOutcome, ScreenFn, Screening

ROLE = "generator"
STRATEGY, STRATEGY_SBFL = "generator", "generator-sbfl"  # from the diagnosis | from the spectrum
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
        parallel: int = 1,
        hint: str = "",
    ) -> None:
        self.hint = hint_for_prompt(hint)
        self.parallel = parallel  # answers requested at once in the first batch; 1 = one by one
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
        into: RepairOutcome | None = None,
    ) -> RepairOutcome:
        """`into`: where the answers' screenings go as they come (a new outcome when None), so a
        plausible answer found before the provider fails or the budget ends is not lost."""
        outcome = into if into is not None else RepairOutcome()
        focus = self._focus(context, diagnosis)
        samples = self.samples
        if self.parallel > 1 and samples > 1:
            found = self._parallel_batch(context, screen, budget, diagnosis, lessons, feedback, outcome)
            samples -= found[0]
            if outcome.plausible or samples <= 0:
                return outcome
            feedback = found[1] or feedback
        for _ in range(samples):
            if not budget.take():
                outcome.stopped_because = budget.reason
                break
            reply = self.provider.complete(
                self._messages(context, focus, lessons, feedback), max_tokens=self.max_tokens
            )
            screening, feedback = self._try(reply, context, screen, outcome, STRATEGY)
            if screening is not None and screening.plausible and not feedback:
                break  # a plausible answer with overfit risks has feedback: one more may do better
        return outcome

    def _parallel_batch(
        self,
        context: RepairContext,
        screen: ScreenFn,
        budget: Budget,
        diagnosis: Diagnosis | None,
        lessons: str,
        feedback: str,
        outcome: RepairOutcome,
    ) -> tuple[int, str]:
        """Several answers requested at once, from different angles: the diagnosis, and the
        spectrum's most suspicious function as if there were no diagnosis. All are screened; every
        plausible one goes to the verdict, which picks the winner. Returns (answers, last feedback)."""
        angles = [(self._focus(context, diagnosis), STRATEGY)]
        if diagnosis is not None:
            angles.append((self._focus(context, None), STRATEGY_SBFL))
        while len(angles) < min(self.parallel, self.samples):
            angles.append(angles[0])
        asked = []
        for angle in angles:
            if not budget.take():
                outcome.stopped_because = budget.reason
                break
            asked.append(angle)
        if not asked:
            return 0, ""
        with ThreadPoolExecutor(max_workers=len(asked)) as pool:
            futures = [
                pool.submit(
                    self.provider.complete,
                    self._messages(context, focus, lessons, feedback),
                    max_tokens=self.max_tokens,
                )
                for focus, _ in asked
            ]
            replies = [f.result() for f in futures]  # a provider error propagates, as one call's would
        last = ""
        for reply, (_, strategy) in zip(replies, asked, strict=True):
            _, said = self._try(reply, context, screen, outcome, strategy, keep_going=True)
            last = said or last
        return len(asked), last

    def _messages(self, context: RepairContext, focus: tuple[str, str, str], lessons: str, feedback: str):
        file, function, cause = focus

        hint = {"hint": self.hint} if takes_hint(self.prompts, ROLE) else {}

        def render(source: str):
            return self.prompts.render(
                ROLE, diagnosis=cause, file=file, function=function, source=source,
                failing=self._failing(context), lessons=lessons or "(none)", feedback=feedback, **hint,
            )  # fmt: skip

        lines = sorted({s.line for s in context.localization.top_lines(limit=10) if s.file == file})
        # a small model's window: the file cut around the suspicious lines, their defs kept whole
        source = fit_field(render, context.sources.get(file, "")[:MAX_SOURCE_CHARS], self.provider,
                           self.max_tokens, focus_lines=lines)  # fmt: skip
        return render(source)

    def _try(
        self,
        reply,
        context: RepairContext,
        screen: ScreenFn,
        outcome: RepairOutcome,
        strategy: str,
        keep_going: bool = False,
    ) -> tuple[Screening | None, str]:
        """Apply and screen one answer; (its screening or None, feedback for the next answer)."""
        self.log.answers += 1
        self.log.usage = self.log.usage + reply.usage
        outcome.tried += 1
        outcome.families_tried["generator"] = outcome.families_tried.get("generator", 0) + 1
        edits = edits_from_answer(reply.text, context.sources, protected=self.protected)
        if not edits.ok:
            self.log.not_applied += 1
            self.log.problems.extend(edits.problems)
            return None, edits.feedback()
        summary = reply.text.strip().splitlines()[0][:160] if reply.text.strip() else "model edit"
        candidate = edits.candidate(summary, strategy=strategy)
        screening = screen(candidate)
        self.log.screened += 1
        if screening.plausible:
            outcome.plausible.append(screening)
            return screening, self._overfit_feedback(context, candidate)
        if screening.improving and (
            outcome.partial is None or len(screening.fixed) > len(outcome.partial.fixed)
        ):
            outcome.partial = screening
        outcome.ruled_out.append(screening)
        return screening, self._screening_feedback(screening)

    @staticmethod
    def _overfit_feedback(context: RepairContext, candidate: Candidate) -> str:
        """Why a patch that passes the tests may still not be the fix, for the next answer; "" when
        neither the overfit review nor the bypass review sees anything. The round's choice prefers
        a candidate without overfit risks, and one that changes the computation to a bypass."""
        try:
            patched = apply_edits(context.sources, candidate.edits)
        except (KeyError, ValueError):
            return ""
        risks = overfit_risks(context.sources, patched, context.target_tests)
        skipped = bypassed_functions(context.sources, patched, context.localization.traceback_lines())
        if not risks and not skipped:
            return ""
        if not risks:
            return (
                "Your last patch makes the failing tests pass by skipping code (a new early return, "
                "continue or break, a guard, or deleting the statement the tests failed in) in "
                + ", ".join(skipped)
                + ". If the bug is in the "
                "computation that is now skipped, fix the computation itself instead; if skipping is "
                "truly the fix, give the same patch again."
            )
        return (
            "Your last patch makes the failing tests pass, but it looks fitted to the tests rather than "
            "a fix of the bug:\n"
            + "\n".join(f"- {risk.function}: {risk.detail}" for risk in risks)
            + "\nFix the computation itself, so that it is right for every input, not only the tested ones."
        )

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
            message = for_prompt(context.baseline_messages.get(test) or "", normalize=False).splitlines()
            lines.append(f"{for_prompt(test, normalize=False)}: {message[0][:200] if message else 'failed'}")
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
