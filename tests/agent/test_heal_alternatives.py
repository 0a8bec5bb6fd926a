"""Where the plausible patches disagree, in whole heals with a real local sandbox: the comparison
(agent/alternatives.py), the new tests it holds back, the oracle that rules a fix out, the pull
request's table and the tests that decide.

The candidates come from `ScriptedRepairs`, a repair strategy that proposes a fixed list of edits
through the real screening (the seam every strategy plugs into), so that which patches are
plausible is known; what they do on generated inputs is measured for real.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.model.llm.base import Reply
from selfheal.agent.model.llm.scripted import ScriptedModel
from selfheal.agent.model.strategy import ModelSetup
from selfheal.agent.repair.disagreement import ModelJudgement
from selfheal.agent.repair.edits import Candidate, Edit
from selfheal.agent.repair.strategy import Budget, RepairContext, RepairOutcome, ScreenFn
from selfheal.agent.report.reportjson import build_report
from selfheal.agent.report.summary import build_summary
from selfheal.sandbox import LocalSandbox
from tests.conftest import git, report_errors

PAGES = '''\
"""Pagination helpers.

Pages are numbered from 1: page 1 holds the first `per_page` items.
"""


def page_slice(items, page, per_page):
    """The items on `page` (numbered from 1), at most `per_page` of them.{example}"""
    start = page * per_page
    return items[start:start + per_page]
'''
EXAMPLE = "\n\n    >>> page_slice(list(range(10)), 2, 3)\n    [3, 4, 5]\n    "
TESTS = """\
from pager.pages import page_slice


def test_first_page_holds_the_first_items():
    assert page_slice(list(range(10)), 1, 3) == [0, 1, 2]


def test_nothing_to_show():
    assert page_slice([], 1, 3) == []
"""
BUGGY = "page * per_page"
FLOOR = "page // per_page"  # right for page 1 only
SHIFTED = "(page - 1) * per_page"  # the fix a person writes
SPELLED = "page * per_page - per_page"  # the same fix, written otherwise


@dataclass
class ScriptedRepairs:
    """A repair strategy proposing `replacements` of `old` in `path`, in order, each screened."""

    path: str
    old: str
    replacements: list[str]
    name: str = "search"

    def repair(self, context: RepairContext, screen: ScreenFn, budget: Budget) -> RepairOutcome:
        outcome = RepairOutcome()
        text = context.sources[self.path]
        start = text.encode().index(self.old.encode())
        line = text[: text.index(self.old)].count("\n") + 1
        for new in self.replacements:
            if not budget.take():
                break
            candidate = Candidate(
                edits=(Edit(self.path, start, start + len(self.old.encode()), new),), family="scripted",
                description=f"{self.path}:{line}: `{self.old}` -> `{new}`", file=self.path, line=line,
                function="page_slice", score=1.0,
            )  # fmt: skip
            screening = screen(candidate)
            outcome.tried += 1
            if screening.plausible:
                outcome.plausible.append(screening)
        return outcome


def pager_repo(root: Path, *, example: str = "") -> Path:
    repo = root / "pager-repo"
    (repo / "pager").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pager" / "__init__.py").write_text("")
    (repo / "pager" / "pages.py").write_text(PAGES.format(example=example))
    (repo / "tests" / "test_pages.py").write_text(TESTS)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pager")
    return repo


def heal_with(repo: Path, replacements: list[str], **flags):
    config = build_config(repo, {"python": sys.executable, "sandbox": "local", **flags})
    trace = Trace()
    strategy = ScriptedRepairs("pager/pages.py", BUGGY, replacements)
    return heal(config, LocalSandbox(), trace, strategy=strategy), trace


def passes(repo: Path, tmp: Path, replacement: str, test_text: str) -> bool:
    """Does `test_text` pass on a copy of `repo` whose bug is replaced by `replacement`?"""
    copy = tmp / f"check-{abs(hash((replacement, test_text)))}"
    git(tmp, "clone", "-q", str(repo), str(copy))
    pages = copy / "pager" / "pages.py"
    pages.write_text(pages.read_text().replace(BUGGY, replacement, 1))
    (copy / "tests" / "test_decides.py").write_text(test_text)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_decides.py"],
        cwd=copy, capture_output=True, text=True,
    )  # fmt: skip
    return done.returncode == 0


def test_fixes_that_disagree_on_later_pages_leave_the_fix_open(tmp_path: Path) -> None:
    repo = pager_repo(tmp_path)
    result, trace = heal_with(repo, [FLOOR, SHIFTED])

    assert result.status == "healed"
    assert result.fixes[-1].description.endswith(f"`{FLOOR}`")  # the first plausible ships, as ordered
    found = result.disagreement
    assert found is not None and found.open and found.measured
    assert found.plausible == 2
    assert [g.members for g in found.groups] == [
        (f"pager/pages.py:9: `{BUGGY}` -> `{FLOOR}`",),
        (f"pager/pages.py:9: `{BUGGY}` -> `{SHIFTED}`",),
    ]
    assert [g.shipped for g in found.groups] == [True, False]
    assert all(g.validated for g in found.groups)  # each met the verdict's full run
    # every input shown tells the two fixes apart, and page 1 is never one of them
    assert found.inputs
    for shown in found.inputs:
        assert shown.results[0] != shown.results[1]
        assert not shown.call.startswith("page_slice(list(range(10)), 1, 3")
    # the test that decides for each fix passes with it and fails with the other
    floor_test, shifted_test = (g.decision_test for g in found.groups)
    assert passes(repo, tmp_path, FLOOR, floor_test) and not passes(repo, tmp_path, SHIFTED, floor_test)
    assert passes(repo, tmp_path, SHIFTED, shifted_test) and not passes(repo, tmp_path, FLOOR, shifted_test)
    # no shipped test asserts what only the shipped fix gives: each passes with the other fix too
    for path, text in result.test_files.items():
        assert passes(repo, tmp_path, SHIFTED, text), path
    report = build_report(result)
    assert report_errors(report) == []
    assert report["disagreement"]["open"] is True
    assert len(report["disagreement"]["held_back_tests"]) == len(result.tests.contested)
    summary = build_summary(result, report)
    assert summary.splitlines()[2] == "### The tests allow more than one fix"
    assert "| input | before the patch | fix 1 (shipped) | fix 2 |" in summary
    assert f"`{BUGGY}` -> `{SHIFTED}`" in summary
    nodes = [e.node for e in trace.events if e.end is not None]
    assert nodes.index("compare_plausible") < nodes.index("new_tests")


def test_fixes_that_agree_on_every_input_are_one_fix(tmp_path: Path) -> None:
    repo = pager_repo(tmp_path)
    result, _ = heal_with(repo, [SHIFTED, SPELLED])

    assert result.status == "healed"
    found = result.disagreement
    assert found is not None and not found.open and found.measured
    assert found.plausible == 2 and found.probes > 10
    [group] = found.groups
    # in the round's order of preference (which put the spelling that repeats the docstring's
    # `per_page` first); both are one fix
    assert set(group.members) == {
        f"pager/pages.py:9: `{BUGGY}` -> `{SHIFTED}`",
        f"pager/pages.py:9: `{BUGGY}` -> `{SPELLED}`",
    }
    assert result.tests.contested == []
    summary = build_summary(result, build_report(result))
    assert "The tests allow more than one fix" not in summary
    assert "2 distinct plausible patches were run with the original code on" in summary


def test_a_docstring_example_rules_out_the_fix_it_contradicts_and_the_other_ships(tmp_path: Path) -> None:
    repo = pager_repo(tmp_path, example=EXAMPLE)
    result, _ = heal_with(repo, [FLOOR, SHIFTED])

    assert result.status == "healed"
    assert result.fixes[-1].description.endswith(f"`{SHIFTED}`")
    found = result.disagreement
    assert found is not None and not found.open
    shipped, ruled_out = found.groups
    assert shipped.shipped and shipped.members[0].endswith(f"`{SHIFTED}`")
    assert ruled_out.refuted_by == "the docstring example `page_slice(list(range(10)), 2, 3)`"
    assert any("[3, 4, 5]" in text for text in result.test_files.values())  # the example ships as a test


def test_the_only_plausible_patch_says_nothing_was_compared(tmp_path: Path) -> None:
    repo = pager_repo(tmp_path)
    result, _ = heal_with(repo, [FLOOR])

    found = result.disagreement
    assert found is not None and not found.open and not found.measured
    assert found.plausible == 1
    summary = build_summary(result, build_report(result))
    assert "No other patch among the 1 candidates screened made the failing tests pass" in summary


# -- with a model: the judge's advice -----------------------------------------------------------
CONCLUSION = {
    "root_cause": "page_slice() starts page 1 after the first per_page items: pages are numbered from 1.",
    "location": {"file": "pager/pages.py", "line": 9, "function": "page_slice"},
    "confidence": 0.9,
    "strategy": "Start at the item before which page - 1 full pages lie.",
    "evidence": ["page_slice(list(range(10)), 1, 3) returned [3, 4, 5]"],
}


def edit(new: str) -> Reply:
    return Reply(
        f"Start at the right item.\n\npager/pages.py\n<<<<<<< SEARCH\n    start = {BUGGY}\n=======\n"
        f"    start = {new}\n>>>>>>> REPLACE\n"
    )


@dataclass
class JudgeByContent:
    """A judge that prefers the fix whose patch contains `wanted`, as a model that read the
    module's docstring would; it records what it was shown."""

    wanted: str
    name: str = "judge"
    shown: list[str] = field(default_factory=list)

    def complete(self, messages, *, tools=None, schema=None, max_tokens: int) -> Reply:
        text = messages[-1].content
        self.shown.append(text)
        fixes = re.findall(r"^Fix (\d+): ", text, flags=re.M)
        chosen = next(n for n in fixes if self.wanted in text.split(f"Fix {n}: ", 1)[1].split("\nFix ", 1)[0])
        reasons = "The module says pages are numbered from 1; page 2 must start at item 3."
        return Reply(json.dumps({"preferred": int(chosen), "reasons": reasons}))


def test_the_judge_puts_the_fix_the_documentation_means_first_and_the_fix_stays_open(tmp_path: Path) -> None:
    repo = pager_repo(tmp_path)
    judge = JudgeByContent(f"+    start = {SHIFTED}")
    setup = ModelSetup(
        debugger=ScriptedModel([Reply(json.dumps(CONCLUSION))]),
        generator=ScriptedModel([edit(FLOOR), edit(SHIFTED)]),
        judge=judge, search_share=0.0, samples=2, parallel=2,
    )  # fmt: skip
    config = build_config(repo, {"python": sys.executable, "sandbox": "local"})
    result = heal(config, LocalSandbox(), Trace(), model=setup)

    assert result.status == "healed"
    assert f"+    start = {SHIFTED}" in result.patch  # the judge's choice ships: it meets the verdict
    found = result.disagreement
    assert found is not None and found.open  # advice: the tests still allow both, the PR stays a draft
    # the model's two answers share a description; the comparison tells them apart
    assert sorted(g.members for g in found.groups) == [
        ("Start at the right item.",),
        ("Start at the right item. (patch 2)",),
    ]
    assert found.groups[0].shipped and f"+    start = {SHIFTED}" in found.groups[0].patch
    assert found.judgement == ModelJudgement(
        0, "The module says pages are numbered from 1; page 2 must start at item 3.", provider="none"
    )
    [shown] = judge.shown
    assert "<differences>" in shown and "| input | before | fix 1 | fix 2 |" in shown
    assert "Pages are numbered from 1" in shown  # the code and its documentation
    summary = build_summary(result, build_report(result))
    assert "The model judges this the fix the code means: The module says pages" in summary
    # the two answers are asked at once, so which one the verdict's round shipped first varies:
    # the judge's was either shipped already, or put in place of the other, and said so
    first_shown = "Fix 1: " + shown.split("Fix 1: ", 1)[1].split("\nFix 2: ", 1)[0]
    switched = f"+    start = {SHIFTED}" not in first_shown
    assert any(n.startswith("the model judged another of the fixes") for n in result.notes) == switched
