"""The verdict refuses what is not a repair: real repos, real runs, hand-written candidates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import selfheal.agent.verdict
from selfheal.agent.loop import HealRun
from selfheal.agent.prepare import run_baseline
from selfheal.agent.repair.edits import Candidate, Edit
from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.testrun import TestReport
from selfheal.agent.verdict import (
    RULE_NAMES,
    NewTestEvidence,
    Verdict,
    added_skips,
    collected_test_files,
    judge,
    protected_changes,
)
from tests.agent.healrun import heal_run

CALC = {
    "calc/__init__.py": "",
    "calc/ops.py": '''
        def clamp(value, low, high):
            """Limit value to the closed range [low, high]."""
            if value < low:
                return low
            if value > high:
                return low
            return value


        def double(value):
            return value * 2
        ''',
    "tests/test_ops.py": """
        from calc.ops import clamp, double


        def test_clamp_inside():
            assert clamp(5, 0, 10) == 5


        def test_clamp_below():
            assert clamp(-3, 0, 10) == 0


        def test_clamp_above():
            assert clamp(42, 0, 10) == 10


        def test_double():
            assert double(4) == 8
        """,
}


def replace_in(run: HealRun, path: str, old: str, new: str) -> Edit:
    data = run.state.base_text(path).encode()
    assert old.encode() in data
    start = data.index(old.encode())
    return Edit(path, start, start + len(old.encode()), new)


def judge_replacements(repo: Path, *replacements: tuple[str, str, str]) -> tuple[TestReport, Verdict]:
    """Baseline, then the verdict on a hand-written candidate of (path, old, new) replacements,
    through the same real runs a heal makes."""
    with heal_run(repo) as run:
        baseline, _ = run_baseline(run.state)
        candidate = Candidate(
            edits=tuple(replace_in(run, *r) for r in replacements), family="hand-written",
            description="hand-written candidate", file=replacements[0][0], line=1, function="?",
            score=1.0,
        )  # fmt: skip
        return baseline, run.rounds.validate(candidate, {}, baseline)


@pytest.fixture
def calc_repo(make_repo) -> Path:
    return make_repo(CALC)


RIGHT_FIX = ("calc/ops.py", "return low\n    return value", "return high\n    return value")


def test_right_fix_is_healed(calc_repo):
    baseline, verdict = judge_replacements(calc_repo, RIGHT_FIX)
    assert baseline.failing == ["tests/test_ops.py::test_clamp_above"]
    assert verdict.status == "healed"
    assert [r.holds for r in verdict.rules] == [True] * 5
    assert verdict.healed == ("tests/test_ops.py::test_clamp_above",)


def test_refuses_a_candidate_that_edits_a_test_file(calc_repo):
    _, verdict = judge_replacements(
        calc_repo,
        ("tests/test_ops.py", "assert clamp(42, 0, 10) == 10", "assert clamp(42, 0, 10) == 0"),
    )
    assert verdict.status == "not_healed"
    rule3 = verdict.rules[2]
    assert not rule3.holds
    assert "tests/test_ops.py is protected" in rule3.detail
    # the failing test did pass with the edited assertion: only rule 3 stands in the way
    assert verdict.rules[0].holds and verdict.rules[1].holds


# The tests in a root-level `tests.py`, which no default pattern protects, named by the test
# command: the file pytest collected them from is what makes it a test file.
ROOT_TESTS = {
    "calc.py": """
        def first(items):
            for item in items:
                return item
            raise ValueError("empty")
        """,
    "tests.py": """
        import pytest

        from calc import first


        def test_first_item():
            assert first([3, 4]) == 3


        def test_an_error_of_the_items_reaches_the_caller():
            def items():
                yield "valid"
                raise KeyError("broken")

            with pytest.raises(KeyError):
                first(items())
        """,
    "pyproject.toml": '[tool.selfheal]\ntest-command = "python -m pytest tests.py"\n',
}


def test_refuses_a_candidate_that_edits_a_file_the_suite_collected_tests_from(make_repo):
    repo = make_repo(ROOT_TESTS)
    baseline, verdict = judge_replacements(repo, ("tests.py", '        yield "valid"\n', ""))
    assert baseline.failing == ["tests.py::test_an_error_of_the_items_reaches_the_caller"]
    assert verdict.status == "not_healed"
    assert verdict.rules[2].detail == "tests.py holds tests the suite ran at baseline"
    # the edited test did pass: only rule 3 stands in the way
    assert verdict.rules[0].holds and verdict.rules[1].holds


def test_a_file_the_suite_collected_tests_from_is_no_source_to_repair(make_repo):
    repo = make_repo(ROOT_TESTS)
    with heal_run(repo) as run:
        assert "tests.py" in run.state.sources  # no name pattern says it is a test file ...
        run_baseline(run.state)
        assert sorted(run.state.sources) == ["calc.py"]  # ... the baseline's test ids do
        assert run.state.result.notes[-1] == (
            "tests.py holds tests the suite runs: treated as a test file, never repaired"
        )


def test_the_files_tests_are_collected_from_are_test_files_but_a_doctest_s_module_is_code():
    ids = [
        "tests.py::test_first_item",
        "tests.py::TestFirst::test_empty[1.5]",
        "checks/run_checks.py::test_it",
        "pkg/calc.py::pkg.calc.f",  # --doctest-modules: the module's docstrings
        "top.py::top",
    ]
    assert collected_test_files(ids) == {"tests.py", "checks/run_checks.py"}


def test_refuses_a_candidate_that_breaks_another_test(calc_repo):
    # returns high for everything outside [low, high]: fixes "above", breaks "below"
    _, verdict = judge_replacements(
        calc_repo,
        (
            "calc/ops.py",
            "        return low\n    if value > high:",
            "        return high\n    if value > high:",
        ),
        RIGHT_FIX,
    )
    assert verdict.status == "not_healed"
    assert verdict.healed == ("tests/test_ops.py::test_clamp_above",)
    assert verdict.regressions == ("tests/test_ops.py::test_clamp_below",)
    assert not verdict.rules[1].holds
    assert "test_clamp_below" in verdict.rules[1].detail


def test_refuses_a_candidate_that_only_skips_the_failing_test(calc_repo):
    _, verdict = judge_replacements(
        calc_repo,
        (
            "tests/test_ops.py",
            "def test_clamp_above():",
            "import pytest\n\n\n@pytest.mark.skip(reason='later')\ndef test_clamp_above():",
        ),
    )
    assert verdict.status == "not_healed"
    assert not verdict.rules[0].holds  # skipped is not passed
    assert verdict.still_failing == ("tests/test_ops.py::test_clamp_above",)
    assert "adds a skip or xfail: @pytest.mark.skip(reason='later')" in verdict.rules[2].detail


def test_refuses_a_skip_smuggled_into_source(calc_repo):
    _, verdict = judge_replacements(
        calc_repo,
        (
            "calc/ops.py",
            "    if value > high:\n        return low",
            "    if value > high:\n        import pytest; pytest.skip('x')",
        ),
    )
    assert verdict.status == "not_healed"
    assert not verdict.rules[0].holds
    assert not verdict.rules[2].holds
    assert "pytest.skip('x')" in verdict.rules[2].detail


def _report(outcomes: dict[str, str]) -> TestReport:
    return TestReport("ok", 1, {n: TestOutcome(n, o) for n, o in outcomes.items()}, 0.1)


BASE = _report({"t::a": "failed", "t::b": "passed", "t::flaky": "failed"})


def test_rule5_patch_must_apply():
    verdict = judge(
        baseline=BASE,
        flaky={"t::flaky"},
        after=_report({"t::a": "passed", "t::b": "passed", "t::flaky": "failed"}),
        changes={"m.py": "x = 1\n"},
        base_texts={"m.py": "x = 0\n"},
        patch="",
        protected=(),
        applies=(False, "patch does not apply"),
    )
    assert verdict.status == "not_healed"
    assert verdict.rules[4].detail == "patch does not apply"
    assert verdict.rules[0].holds  # the flaky failure is not required to pass


def test_rule4_new_tests_need_fail_to_pass_proof_or_a_guard_label():
    after = _report({"t::a": "passed", "t::b": "passed", "t::flaky": "passed"})
    proof = NewTestEvidence("tests/test_new.py", "test_edge", fails_on_base=True, passes_on_patch=True)
    guard = NewTestEvidence("tests/test_new.py", "test_same", fails_on_base=False, passes_on_patch=True)
    broken = NewTestEvidence("tests/test_new.py", "test_bad", fails_on_base=True, passes_on_patch=False)
    common = dict(
        baseline=BASE,
        flaky={"t::flaky"},
        after=after,
        changes={},
        base_texts={},
        patch="",
        protected=(),
        applies=(True, "ok"),
    )
    healed = judge(new_tests=(proof, guard), **common)
    assert healed.status == "healed"
    assert [t.kind for t in healed.new_tests] == ["fail_to_pass", "guard"]
    assert healed.rules[3].detail == "1 new test(s) fail on base and pass on the patch; 1 shipped as guard(s)"
    refused = judge(new_tests=(proof, broken), **common)
    assert refused.status == "not_healed"
    assert refused.rules[3].detail == "new tests fail on the patch: test_bad"


def test_partial_when_some_failures_heal_and_nothing_breaks():
    baseline = _report({"t::a": "failed", "t::c": "failed", "t::b": "passed"})
    after = _report({"t::a": "passed", "t::c": "failed", "t::b": "passed"})
    verdict = judge(
        baseline=baseline,
        flaky=set(),
        after=after,
        changes={},
        base_texts={},
        patch="",
        protected=(),
        applies=(True, "ok"),
    )
    assert verdict.status == "partial"
    assert verdict.still_failing == ("t::c",)


def test_a_deleted_test_is_a_violation():
    after = _report({"t::a": "passed", "t::flaky": "failed"})
    verdict = judge(
        baseline=BASE,
        flaky={"t::flaky"},
        after=after,
        changes={},
        base_texts={},
        patch="",
        protected=(),
        applies=(True, "ok"),
    )
    assert verdict.status == "not_healed"
    assert verdict.regressions == ("t::b",)
    assert "test no longer runs: t::b" in verdict.rules[2].detail


def test_protected_settings_inside_pyproject():
    old = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
    new_project = old.replace('name = "x"', 'name = "y"')
    new_pytest = old.replace('"-q"', '"-q -k not slow"')
    globs = ("tests/**",)
    assert protected_changes({"pyproject.toml": new_project}, {"pyproject.toml": old}, globs) == []
    assert protected_changes({"pyproject.toml": new_pytest}, {"pyproject.toml": old}, globs) == [
        "pyproject.toml: changes protected settings tool.pytest"
    ]
    assert protected_changes({"tests/test_x.py": ""}, {}, globs) == [
        "tests/test_x.py is protected (tests, test configuration or CI)"
    ]


def test_added_skips_reads_only_added_lines():
    patch = (
        "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,3 @@\n-    pytest.skip('old')\n"
        "+    return 1\n+@unittest.skip('no')\n+    raise unittest.SkipTest('x')\n"
    )
    assert added_skips(patch) == ["@unittest.skip('no')", "raise unittest.SkipTest('x')"]


def test_every_rule_of_the_verdict_has_a_name():
    documented = [int(n) for n in re.findall(r"^(\d+)\. ", selfheal.agent.verdict.__doc__, re.M)]
    assert documented == list(range(1, 13))
    assert list(RULE_NAMES) == documented
    assert RULE_NAMES[7] == "signed outcomes"
    assert all(name and len(name) <= 26 for name in RULE_NAMES.values())  # a table cell, not a sentence
