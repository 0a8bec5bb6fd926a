"""Which of the plausible fixes ships, when the tests allow more than one.

    FixChoice(state, rounds).compare_fixes(baseline)   the round's plausible patches compared;
                                                      one the documentation allows ships instead
    .judge(model, baseline)                           the model says which fix the code means
    .alternatives(), .refute(...)                     the other fixes, for the new tests' proof
    .patch_replaced(why)                              a later step replaced the compared patch

Another fix ships only when it meets the verdict too; the disagreement stays in the report.
"""

from __future__ import annotations

from dataclasses import replace

from selfheal.agent.alternatives import Comparison
from selfheal.agent.events import stage
from selfheal.agent.model.strategy import ModelStrategy
from selfheal.agent.repair.disagreement import BehaviourGroup, Disagreement, ModelJudgement
from selfheal.agent.rounds import RepairRounds
from selfheal.agent.run.testrun import TestReport
from selfheal.agent.state import HealState, restore, snapshot


class FixChoice:
    def __init__(self, state: HealState, rounds: RepairRounds) -> None:
        self.state = state
        self.rounds = rounds
        self.comparison: Comparison | None = None

    def compare_fixes(self, baseline: TestReport) -> None:
        """Where the round's plausible patches disagree (agent/alternatives.py), into
        `result.disagreement`; with a model, its judgement of which fix the code means."""
        self.comparison = Comparison(self.state, self.rounds)
        disagreement = self.comparison.compare(baseline)
        shipped = next((g for g in disagreement.groups if g.shipped), None)
        if shipped is not None and shipped.refuted_by:
            # the documentation contradicts the shipped patch: a fix it allows ships instead
            for group in [g for g in disagreement.standing if g.validated]:
                if self._ship(group, baseline):
                    self._put_first(group)
                    self.state.result.notes.append(
                        f"{shipped.members[0]} passed the tests but contradicts {shipped.refuted_by}; "
                        f"{group.members[0]} ships instead"
                    )
                    break
            disagreement = self.state.result.disagreement
        model = self.state.model
        if disagreement.open and model is not None and model.judge is not None:
            self.state.model_step(lambda: self.judge(model, baseline))

    def judge(self, model: ModelStrategy, baseline: TestReport) -> None:
        """The model reads the code and the groups' differences and says which fix the code means.
        Advice: it may put another group's patch first, only when that patch meets the verdict; the
        disagreement and the draft stay."""
        state, result, comparison = self.state, self.state.result, self.comparison
        disagreement = result.disagreement
        assert comparison is not None and disagreement is not None
        standing = list(disagreement.standing)
        paths = sorted({p for g in standing for p in comparison.changes[g.members[0]]})
        code = "\n\n".join(f"# {p}\n{state.base_text(p)}" for p in paths)
        fixes = "\n\n".join(f"Fix {i + 1}: {g.members[0]}\n{g.patch}" for i, g in enumerate(standing))
        header = "| input | before | " + " | ".join(f"fix {i + 1}" for i in range(len(standing))) + " |"
        rows = [f"| {i.call} | {i.base} | " + " | ".join(i.results) + " |" for i in disagreement.inputs]
        with stage(state.events, "judge", fixes=len(standing)) as info:
            answer = model.judge_fixes(code=code, fixes=fixes, differences="\n".join([header, *rows]))
            info.update(answer=list(answer) if answer else None)
        if answer is None:
            return
        number, reasons = answer
        preferred = number - 1 if number is not None and 1 <= number <= len(standing) else None
        chosen = standing[preferred] if preferred is not None else None
        if chosen is not None and not chosen.shipped and self._ship(chosen, baseline):
            self._put_first(chosen)
            preferred = 0
            result.notes.append(
                f"the model judged another of the fixes the tests allow to be meant: {reasons}"
            )
        result.disagreement = replace(
            result.disagreement, judgement=ModelJudgement(preferred, reasons, provider=state.config.provider)
        )

    def _put_first(self, chosen: BehaviourGroup) -> None:
        """`chosen` is now the shipped group: first among the standing ones, the table's columns
        in the new order."""
        result = self.state.result
        disagreement = result.disagreement
        assert disagreement is not None
        standing = [chosen, *[g for g in disagreement.standing if g is not chosen]]
        groups = [replace(g, shipped=g is chosen) for g in standing]
        groups += [replace(g, shipped=False) for g in disagreement.groups if g.refuted_by]
        result.disagreement = replace(
            disagreement, groups=tuple(groups), inputs=_reordered(disagreement, standing)
        )

    def _ship(self, group: BehaviourGroup, baseline: TestReport) -> bool:
        """Put another group's patch in place of the shipped one, when it meets the verdict."""
        result, rounds = self.state.result, self.rounds
        assert self.comparison is not None
        candidate = self.comparison.candidates[group.members[0]]
        kept = snapshot(result)
        result.fixes = result.fixes[:-1]
        if rounds.validate(candidate, rounds.accepted, baseline).holds:
            return True
        restore(result, kept)
        return False

    def alternatives(self) -> list[dict[str, str]]:
        """The changes of each other fix the tests allow (the standing groups besides the shipped
        one), in the disagreement's order."""
        disagreement = self.state.result.disagreement
        if self.comparison is None or disagreement is None or not disagreement.open:
            return []
        return [self.comparison.changes[g.members[0]] for g in disagreement.standing if not g.shipped]

    def patch_replaced(self, why: str) -> None:
        """A later step replaced the compared patch: the comparison no longer describes it."""
        result = self.state.result
        self.comparison = None
        description = result.fixes[-1].description if result.fixes else "the patch"
        result.disagreement = Disagreement(
            groups=(BehaviourGroup((description,), result.patch, shipped=True, validated=True),),
            plausible=1,
            notes=(f"{why}; the plausible patches of the search were not compared with it",),
        )

    def refute(self, refuting: dict[int, str]) -> None:
        """Other fixes an oracle test (a docstring example) fails on are not fixes the code allows."""
        result = self.state.result
        disagreement = result.disagreement
        if not refuting or disagreement is None:
            return
        others = [g for g in disagreement.standing if not g.shipped]
        refuted = {others[i].members[0]: why for i, why in refuting.items() if i < len(others)}
        result.disagreement = replace(
            disagreement,
            groups=tuple(
                replace(g, refuted_by=refuted[g.members[0]]) if g.members[0] in refuted else g
                for g in disagreement.groups
            ),
        )


def _reordered(disagreement: Disagreement, standing: list[BehaviourGroup]) -> tuple:
    """The distinguishing inputs with their results in the order of `standing`."""
    before = list(disagreement.standing)
    order = [before.index(g) for g in standing]
    return tuple(replace(i, results=tuple(i.results[k] for k in order)) for i in disagreement.inputs)
