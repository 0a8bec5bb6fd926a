"""Among candidates that all meet the verdict, one without overfit risks wins over one that may only
fit the tests: a scripted model (the fake Messages API) first answers with the failing test's input
special-cased, then with the real fix; both pass every test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.cheats.harness import BUGGY_RETURN, CONCLUSION, heal_with_scripted_claude, make_repo

pytestmark = pytest.mark.slow


def _answer(title: str, body: str) -> str:
    return f"{title}\n\nshop/pricing.py\n<<<<<<< SEARCH\n{BUGGY_RETURN}=======\n{body}>>>>>>> REPLACE\n"


SPECIAL_CASED = _answer(
    "SPECIAL: the tested prices answered",
    "    if list(prices) == [10.0, 20.0]:\n        return 33.0\n" + BUGGY_RETURN,
)
REAL_FIX = _answer("REAL: the tax applied", "    return round(sum(prices) * (1 + tax), 2)\n")


def test_a_candidate_without_overfit_risks_wins_over_an_earlier_one_with_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pytest")
    result, trace, report = heal_with_scripted_claude(
        repo, [json.dumps(CONCLUSION), SPECIAL_CASED, REAL_FIX], tmp_path,
        {"max_iterations": 1, "flake_reruns": 0}, samples=2,
    )  # fmt: skip

    assert report["status"] == "healed"
    assert [f.description.split(":")[0] for f in result.fixes] == ["REAL"]
    assert report["overfit_risks"] == []
    assert "round(sum(prices) * (1 + tax), 2)" in report["patch"]
    # the overfit review put the special case after the fix before either was validated
    [prefer] = [e for e in trace.events if e.node == "prefer"]
    order = [(o["candidate"].split(":")[0], o["overfit_risk"]) for o in prefer.data["order"]]
    assert order == [("REAL", False), ("SPECIAL", True)]
    assert [e for e in trace.events if e.node == "choose"] == []  # one validation was enough
