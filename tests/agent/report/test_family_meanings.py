"""Every family the search can ship a fix from is said in words in the lessons and the pull
request's root cause: a family's internal name ("crash-none") means nothing to the maintainer;
and a fix on a line the tests point to only weakly is said to stand there."""

from __future__ import annotations

from selfheal.agent.localize.spectrum import Localization, SuspiciousLine
from selfheal.agent.repair.edits import Candidate
from selfheal.agent.repair.mutation import PRIORS
from selfheal.agent.report.lessons import FAMILY_MEANING, build_lessons, meaning
from selfheal.agent.report.result import HealResult
from selfheal.sandbox import SandboxInfo


def test_every_family_with_a_prior_has_a_meaning():
    assert sorted(set(PRIORS) - set(FAMILY_MEANING)) == []


def test_a_crash_site_fix_reads_as_words():
    candidate = Candidate(
        edits=(),
        family="crash-none",
        description="",
        file="contacts/book.py",
        line=16,
        function="domains",
        score=1.0,
    )
    assert meaning(candidate) == "a value that can be None was used without checking for None"


def _weak_line_lesson(strategy: str) -> str:
    lines = (
        SuspiciousLine("semver/version.py", 532, 0.70, 1.0, 0.0, "Version.__repr__"),
        SuspiciousLine("semver/version.py", 673, 0.165, 0.236, 0.0, "Version.replace"),
    )
    fix = Candidate(
        edits=(), family="receiver-class", description="", file="semver/version.py", line=673,
        function="Version.replace", score=0.08, strategy=strategy,
    )  # fmt: skip
    result = HealResult(
        status="healed", repo=".", base_sha="", test_command="pytest", provider="none",
        sandbox=SandboxInfo("local", False, "test"), fixes=(fix,),
        localization=Localization(lines=lines, targets=(), had_coverage=True),
    )  # fmt: skip
    return next(lesson for lesson in build_lessons(result) if lesson.startswith("Localization"))


def test_a_fix_on_a_weakly_suspicious_line_is_said_to_be_one():
    assert _weak_line_lesson("search") == (
        "Localization ranked semver/version.py:673 #2 of 2 suspicious lines (Ochiai 0.24); no traceback "
        "frame pointed there, so the bug showed as a wrong result, not an exception; below 25% of the best "
        "line's suspiciousness, the tests point at it only weakly: the search reached it after the more "
        "suspicious lines gave no fix."
    )
    # a model's fix there was not reached by widening the search
    assert _weak_line_lesson("model").endswith("the tests point at it only weakly.")
