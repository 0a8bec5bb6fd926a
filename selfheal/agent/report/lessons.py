"""Lessons of one heal: at most five bullets, each a concrete fact of this run.

What was wrong and where, what fixed it, how it was found, what was ruled out, what else
nearly worked. Generic advice is not a lesson.
"""

from __future__ import annotations

from selfheal.agent.events import count
from selfheal.agent.localize.spectrum import FIRST_LOOK_SHARE
from selfheal.agent.repair.edits import Candidate
from selfheal.agent.report.result import ERROR, HEALED, NOTHING_TO_HEAL, PARTIAL, HealResult

MAX_LESSONS = 5

FAMILY_MEANING = {
    "comparison-operator": "a comparison used the wrong operator, so a boundary case fell on the wrong side",
    "off-by-one": "a bound, index or constant was off by one",
    "boolean-operator": "a condition joined its clauses with the wrong boolean operator",
    "arithmetic-operator": "an arithmetic expression used the wrong operator",
    "augmented-assignment": "an in-place update used the wrong operator",
    "slice": "a slice took the wrong range",
    "builtin-swap": "the wrong builtin or method was called",
    "guard": "an empty or None input was not handled before use",
    "raise-guard": "an invalid input was not rejected",
    "operand-swap": "two operands were in the wrong order",
    "literal": "a literal had the wrong value",
    "negation": "a condition was negated the wrong way",
    "condition": "a condition was too wide or too narrow",
    "argument-swap": "two arguments were passed in the wrong order",
    "name": "the wrong variable was used",
    "attribute": "the wrong attribute was read",
    "return-value": "the function returned the wrong value",
    "call-unwrap": "a value went through a call it should not",
    "statement-move": "a statement sat in the wrong place (for example indented into a block)",
    "break-continue": "a loop used break where continue was meant, or the reverse",
    "statement-delete": "an extra statement spoiled the result",
    "statement-insert": "a statement was missing",
    "synthesis-adjust": "a value needed adjusting by another value in scope",
    "synthesis-clamp": "a value was not kept within its bound",
    "synthesis-neutral": "a starting or default value was the wrong neutral value",
    "synthesis-update": "a collection or total was never updated with a value",
    "synthesis-replace": "the wrong value was used where another in scope was meant",
    "sibling-insert": "an update the function makes for one value was missing for another",
    "sibling-argument": "an argument missed the conversion its sibling argument gets",
    "iteration": "a loop went over the wrong part of a sequence or the wrong collection",
    "return-expression": "a constant was returned where a computed value was meant",
    "subexpression-removal": "an expression had a term too many",
    "argument": "a call was given the wrong argument",
    "attribute-of": "a value was used where one of its attributes was meant",
    "constant-swap": "the wrong one of a set of named constants was used",
    "format-string": "two fields of a format string were in each other's place",
    "grouping": "an expression was grouped the wrong way, so it computed in the wrong order",
    "index-step": "an index or counter was not moved on",
    "named-constant": "a written-out value was used where the named constant was meant",
    "none-check": "a value that can be None was used without a default",
    "normalize": "a value was compared or used before it was normalized",
    "regex": "a regular expression matched the wrong text",
    "regex-edit": "a regular expression matched the wrong text",
    "separator": "a string was split or joined on the wrong separator",
    "format-field": "a value was formatted without quoting or escaping",
    "conversion": "a value was not converted to the type the result needs",
    "sibling-method": "the wrong method of the same class was called",
    "receiver-class": (
        "a method named its own class where the receiver's class was meant, "
        "so subclasses got the base class back"
    ),
    "crash-name": "a name or attribute was misspelt",
    "crash-arity": "a call did not fit the signature of the function it called",
    "crash-none": "a value that can be None was used without checking for None",
    "crash-bound": "a key or index was used that the collection may not hold",
    "exception-handler": "an `except` clause caught too few or too many kinds of exception",
}


def meaning(candidate: Candidate) -> str:
    parts = candidate.parts or (candidate,)
    return "; and ".join(FAMILY_MEANING.get(p.family, p.family) for p in parts)


def _where(candidate: Candidate) -> str:
    return f"`{candidate.function}` ({candidate.file}:{candidate.line})"


def what_changed(candidate: Candidate) -> str:
    """The edit itself, without the place its description starts with."""
    return candidate.description.split(": ", 1)[-1]


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def build_lessons(result: HealResult) -> list[str]:
    if result.status == ERROR:
        return [f"The heal stopped before repairing: {_short(result.error or 'unknown error', 200)}"]
    if result.status == NOTHING_TO_HEAL:
        if result.flaky:
            return [
                f"`{t}` failed once and passed when re-run: flaky, so not healed."
                for t in result.flaky[:MAX_LESSONS]
            ]
        return []
    lessons: list[str] = []
    if result.status in (HEALED, PARTIAL):
        lessons += _fix_lessons(result)
    else:
        lessons += _failure_lessons(result)
    lessons += _localization_lesson(result)
    lessons += _ruled_out_lesson(result)
    lessons += _alternatives_lesson(result)
    lessons += [
        f"`{t}` failed once and passed when re-run: reported as flaky, not healed." for t in result.flaky[:1]
    ]
    return lessons[:MAX_LESSONS]


def _fix_lessons(result: HealResult) -> list[str]:
    verdict = result.verdict
    lessons = []
    for index, fix in enumerate(result.fixes[:2]):
        fixed = verdict.healed if verdict and index == len(result.fixes) - 1 else ()
        tests = (
            f" — `{fixed[0]}`{f' and {len(fixed) - 1} more' if len(fixed) > 1 else ''} pass now"
            if fixed
            else ""
        )
        lessons.append(f"In {_where(fix)} {meaning(fix)}: {what_changed(fix)}{tests}.")
    if result.status == PARTIAL and verdict:
        lessons.append(
            f"Still failing after the partial fix: {', '.join(f'`{t}`' for t in verdict.still_failing[:3])}; "
            "no further single or paired mutation made them pass within the budget."
        )
    return lessons


def _failure_lessons(result: HealResult) -> list[str]:
    tried = result.metrics.candidates_tried
    stop = f" ({result.stopped_because})" if result.stopped_because else ""
    first = result.failures_before[0] if result.failures_before else "the failing tests"
    lessons = [f"No candidate among {tried} made `{first}` pass without breaking another test{stop}."]
    if result.families_tried:
        top = sorted(result.families_tried.items(), key=lambda kv: -kv[1])[:4]
        lines = result.localization.lines if result.localization else ()
        around = f" around {lines[0].file}:{lines[0].line}" if lines else ""
        families = ", ".join(f"{family} ({times})" for family, times in top)
        lessons.append(f"Mutation families tried{around}: {families}.")
    return lessons


def _localization_lesson(result: HealResult) -> list[str]:
    localization = result.localization
    if localization is None or not localization.lines:
        return []
    lines = list(localization.lines)
    if result.fixes:
        fix = result.fixes[0]
        rank = next((i for i, s in enumerate(lines, 1) if s.file == fix.file and s.line == fix.line), None)
        if rank is None:
            return []
        suspect = lines[rank - 1]
        evidence = f"Ochiai {suspect.ochiai:.2f}" if localization.had_coverage else "traceback only"
        frames = (
            "; a traceback frame pointed at it"
            if suspect.traceback > 0
            else "; no traceback frame pointed there, so the bug showed as a wrong result, not an exception"
        )
        weakly = ""
        if suspect.score < lines[0].score * FIRST_LOOK_SHARE:
            share = f"{FIRST_LOOK_SHARE:.0%}"
            weakly = f"; below {share} of the best line's suspiciousness, the tests point at it only weakly"
            if fix.strategy == "search":
                weakly += ": the search reached it after the more suspicious lines gave no fix"
        return [
            f"Localization ranked {fix.file}:{fix.line} #{rank} of {len(lines)} suspicious "
            f"lines ({evidence}){frames}{weakly}."
        ]
    top = lines[:3]
    return [
        "Most suspicious lines: "
        + ", ".join(f"{s.file}:{s.line} in `{s.function}` ({s.score:.2f})" for s in top)
        + "."
    ]


def _ruled_out_lesson(result: HealResult) -> list[str]:
    failures = [s for s in result.ruled_out if s.error is None and s.candidate not in result.fixes]
    if not failures:
        return []
    broke = [s for s in failures if s.broken]
    examples = []
    for screening in sorted(failures, key=lambda s: -s.candidate.score)[:2]:
        test = next(iter(sorted(screening.still_failing or screening.broken)), "")
        message = (screening.messages.get(test, "").strip().splitlines() or [""])[0]
        reason = (
            f"broke `{next(iter(sorted(screening.broken)))}`"
            if screening.broken
            else f"left `{test}` failing" + (f": {_short(message, 60)}" if message else "")
        )
        examples.append(f"{screening.candidate.description} ({reason})")
    suffix = f"; {len(broke)} of them broke passing tests" if broke else ""
    return [f"Ruled out {count(len(failures), 'candidate')}{suffix}, e.g. " + "; ".join(examples) + "."]


def _alternatives_lesson(result: HealResult) -> list[str]:
    lessons = []
    for rejection in result.rejections[:1]:
        broken = rejection.verdict.regressions or rejection.verdict.still_failing
        lessons.append(
            f"{rejection.candidate.description} passed screening but the full run refused it "
            f"({rejection.verdict.violations[0] if rejection.verdict.violations else 'verdict failed'})"
            + (f", e.g. `{broken[0]}`" if broken else "")
            + "."
        )
    if result.status == HEALED and result.alternatives:
        other = result.alternatives[0]
        lessons.append(
            f"{count(len(result.alternatives), 'other plausible edit')} also passed screening (e.g. "
            f"{other.description}); the smallest edit was kept and a full run confirmed it."
        )
    return lessons
