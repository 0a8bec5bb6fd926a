"""Every family the search can ship a fix from is said in words in the lessons and the pull
request's root cause: a family's internal name ("crash-none") means nothing to the maintainer."""

from __future__ import annotations

from selfheal.agent.repair.edits import Candidate
from selfheal.agent.repair.mutation import PRIORS
from selfheal.agent.report.lessons import FAMILY_MEANING, meaning


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
