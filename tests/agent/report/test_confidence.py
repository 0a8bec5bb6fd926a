"""The heal's confidence (agent/report/confidence.py): the features it measures, the probability a
calibration gives them, ready for review or not, and why not, in words."""

from __future__ import annotations

import math

import pytest

from selfheal.agent.localize.spectrum import Localization, SuspiciousLine
from selfheal.agent.repair.disagreement import BehaviourGroup, Disagreement, ModelJudgement
from selfheal.agent.repair.edits import Candidate, Edit
from selfheal.agent.repair.overfit import OverfitRisk
from selfheal.agent.report.confidence import (
    FEATURES,
    Calibration,
    Term,
    assess,
    confidence_line,
    load_calibration,
    measure,
)
from selfheal.agent.report.result import HEALED, NOT_HEALED, PARTIAL, HealResult, Metrics
from selfheal.agent.verdict import NewTestEvidence, RuleResult, Verdict
from selfheal.sandbox import SandboxInfo

PATCH = """\
diff --git a/pkg/age.py b/pkg/age.py
--- a/pkg/age.py
+++ b/pkg/age.py
@@ -1,2 +1,2 @@
 def is_adult(age):
-    return age > 18
+    return age >= 18
"""
FIX = Candidate(
    edits=(Edit("pkg/age.py", 30, 38, "age >= 18"),), family="comparison-operator",
    description="pkg/age.py:2: `>` -> `>=`", file="pkg/age.py", line=2, function="is_adult", score=1.0,
)  # fmt: skip
OTHER = Candidate(
    edits=(Edit("pkg/age.py", 30, 38, "age + 1 > 18"),), family="off-by-one",
    description="pkg/age.py:2: age + 1", file="pkg/age.py", line=2, function="is_adult", score=0.8,
)  # fmt: skip
LINES = (
    SuspiciousLine("pkg/age.py", 5, 0.9, 0.9, 0.0, "other"),
    SuspiciousLine("pkg/age.py", 7, 0.9, 0.9, 0.0, "other"),
    SuspiciousLine("pkg/age.py", 2, 0.7, 0.7, 0.0, "is_adult"),
    SuspiciousLine("pkg/age.py", 1, 0.2, 0.2, 0.0, "is_adult"),
)

# a calibration written for these tests: every number below follows from it by hand
MODEL = Calibration(
    version="test-1",
    intercept=2.0,
    terms=(
        Term("bypass", "bypass", "flag", coefficient=-3.0),
        Term("open", "open", "flag", coefficient=-2.0),
        Term("open:not compared", "open", "missing", coefficient=-0.5),
        Term("screened_before:log2", "screened_before", "log2p1", coefficient=-0.5, center=4.0, scale=2.0),
    ),
    threshold=0.8,
    measured_on="fitted on the tests' own heals",
)


def healed(**changes) -> HealResult:
    verdict = Verdict(
        status=HEALED,
        rules=(RuleResult(1, True, "ok"),),
        healed=("tests/test_age.py::test_adult_at_18",),
        still_failing=(),
        regressions=(),
        new_tests=(
            NewTestEvidence("tests/test_selfheal_age.py", "test_a", True, True),
            NewTestEvidence("tests/test_selfheal_age.py", "test_b", True, True),
            NewTestEvidence("tests/test_selfheal_age.py", "test_c", False, True),
        ),
    )
    values = {
        "status": HEALED, "repo": "/repo", "base_sha": "0" * 40, "test_command": "pytest", "provider": "none",
        "sandbox": SandboxInfo("local", False, "test"), "fixes": (FIX,), "patch": PATCH, "verdict": verdict,
        "localization": Localization(lines=LINES, targets=(), had_coverage=True), "iterations": 1,
        "metrics": Metrics(first_plausible_at=15, screened_after_plausible=40, source_lines=1234),
    }  # fmt: skip
    values.update(changes)
    return HealResult(**values)


def test_the_features_of_a_heal_are_what_it_measured():
    result = healed(alternatives=[OTHER, OTHER], documented={FIX.key: True})
    assert measure(result) == {
        "groups_standing": None,
        "open": None,
        "measured": None,
        "plausible": 3,  # the shipped one and the two other plausible candidates of its round
        "bypass": False,
        "overfit_risks": 0,
        "line_rank": 3,  # two lines tie above it at rank 1
        "family": "comparison-operator",
        "family_prior": 1.0,
        "screened_before": 15,
        "screened_after": 40,
        "documented": True,
        "failing_tests": 1,
        "new_tests_proven": 2,
        "patch_lines": 2,
        "source_lines": 1234,
        "fixes": 1,
        "rounds": 1,
        "judgement": "none",
    }
    assert set(measure(result)) == set(FEATURES)


def test_features_of_several_fixes_take_the_weakest():
    pair = Candidate(
        edits=OTHER.edits + FIX.edits, family="comparison-operator+off-by-one", description="pair",
        file="pkg/age.py", line=1, function="is_adult", score=1.0,
    )  # fmt: skip
    model_edit = Candidate(
        edits=(Edit("pkg/age.py", 0, 3, "def"),), family="generator", description="the model's edit",
        file="pkg/age.py", line=9, function="is_adult", score=1.0, strategy="generator",
    )  # fmt: skip
    features = measure(healed(fixes=(FIX, pair), documented={FIX.key: True}, iterations=2))
    assert (features["family_prior"], features["line_rank"], features["fixes"], features["rounds"]) == (
        0.85,
        4,
        2,
        2,
    )
    assert features["documented"] is None  # the pair was not judged: not all the fixes are
    assert features["family"] == "comparison-operator, comparison-operator+off-by-one"
    unranked = measure(healed(fixes=(FIX, model_edit)))
    assert (unranked["family_prior"], unranked["line_rank"]) == (None, None)


def test_the_comparison_of_plausible_patches_is_read_when_there_is_one():
    groups = (
        BehaviourGroup(("a",), "patch a", shipped=True),
        BehaviourGroup(("b", "c"), "patch b"),
        BehaviourGroup(("d",), "patch d", refuted_by="the docstring's example"),
    )
    disagreement = Disagreement(
        groups=groups, plausible=4, measured=True, judgement=ModelJudgement(preferred=1, reasons="says b")
    )
    features = measure(healed(disagreement=disagreement))
    assert (features["groups_standing"], features["open"], features["measured"], features["plausible"]) == (
        2, True, True, 4
    )  # fmt: skip
    assert features["judgement"] == "disagrees"
    agreeing = Disagreement(groups=groups, plausible=4, measured=True, judgement=ModelJudgement(0, "a"))
    assert measure(healed(disagreement=agreeing))["judgement"] == "agrees"
    unsure = Disagreement(groups=groups, plausible=4, measured=True, judgement=ModelJudgement(None, "?"))
    assert measure(healed(disagreement=unsure))["judgement"] == "undecided"


def test_terms_transform_and_standardise_their_feature():
    features = {"bypass": True, "open": None, "screened_before": 15, "plausible": 3, "judgement": "agrees"}
    assert Term("b", "bypass", "flag").raw(features) == 1.0
    assert Term("o", "open", "missing").raw(features) == 1.0
    assert Term("o", "open", "flag").raw(features) is None
    assert Term("o", "open", "flag", coefficient=5.0, center=0.3).standardised(features) == 0.0
    assert Term("s", "screened_before", "log2p1", center=2.0, scale=4.0).standardised(features) == 0.5
    assert Term("p", "plausible", "at_least", argument=2).raw(features) == 1.0
    assert Term("p", "plausible", "positive").raw(features) == 1.0
    assert Term("j", "judgement", "equals", argument="disagrees").raw(features) == 0.0
    assert Term("v", "screened_before", "value").raw(features) == 15.0
    clipped = Term("s", "screened_before", "log2p1", center=2.0, scale=1.0, low=1.0, high=3.0)
    assert clipped.standardised(features) == 1.0  # log2(16) = 4, read as the fitted data's highest, 3
    assert clipped.standardised({"screened_before": 0}) == -1.0  # 0, read as the lowest, 1
    assert Term.from_dict(clipped.as_dict()) == clipped
    with pytest.raises(ValueError, match="unknown transform 'cube'"):
        Term("x", "plausible", "cube").raw(features)


def test_a_heal_the_model_trusts_is_ready_for_review():
    confidence = assess(healed(), MODEL)
    # log-odds 2.0 - 0.5 (not compared) + 0 (15 screenings: log2(16) = 4, the center) = 1.5
    assert math.isclose(MODEL.probability(measure(healed())), 1 / (1 + math.exp(-1.5)))
    assert (confidence.probability, confidence.ready, confidence.threshold) == (0.82, True, 0.8)
    assert confidence.reasons == ("the plausible patches were not compared on generated inputs",)
    assert confidence.model == "test-1"
    assert confidence_line(confidence.as_dict()) == (
        "confidence 0.82 that the patch is right: ready for review (threshold 0.80)"
    )


def test_a_bypass_is_a_draft_that_says_why():
    confidence = assess(
        healed(bypass=("pkg/age.py: is_adult",), metrics=Metrics(first_plausible_at=255)), MODEL
    )
    # 2.0 - 3.0 (bypass) - 0.5 (not compared) - 0.5 x (log2(256) - 4) / 2 = -2.5
    assert confidence.probability == round(1 / (1 + math.exp(2.5)), 2) == 0.08
    assert confidence.ready is False
    assert confidence.reasons == (
        "the probability 0.08 is below the ready-for-review threshold 0.80",
        "it only skips the failing path",
        "the first plausible patch came after 255 candidates",
        "the plausible patches were not compared on generated inputs",
    )
    assert confidence_line(confidence.as_dict()) == (
        "confidence 0.08 that the patch is right: not ready for review (threshold 0.80); "
        "it only skips the failing path"
    )


def test_a_large_project_lowers_the_confidence_in_words():
    sized = Calibration(
        version="test-3", intercept=2.0, threshold=0.8,
        terms=(Term("source_lines:log2", "source_lines", "log2p1", coefficient=-1.0, center=7.0, scale=3.0,
                    low=5.0, high=16.0),),
    )  # fmt: skip
    large = assess(healed(metrics=Metrics(source_lines=16383)), sized)
    # 2.0 - 1.0 x (log2(16384) - 7) / 3 = -0.33...
    assert (large.probability, large.ready) == (round(1 / (1 + math.exp(1 / 3)), 2), False) == (0.42, False)
    assert large.reasons == (
        "the probability 0.42 is below the ready-for-review threshold 0.80",
        "a large project (16383 lines a repair may change): there, fewer patches that pass the tests were "
        "the right fix",
    )
    # beyond the fitted range the model does not extrapolate: 2**20 lines reads as 2**16
    assert assess(healed(metrics=Metrics(source_lines=2**20 - 1)), sized).probability == round(
        1 / (1 + math.exp(-(2.0 - 9 / 3))), 2
    )
    small = assess(healed(metrics=Metrics(source_lines=63)), sized)
    # 2.0 - 1.0 x (log2(64) - 7) / 3 = 2.33...: a small project raises it, and says nothing
    assert (small.probability, small.ready, small.reasons) == (0.91, True, ())


def test_tests_that_allow_more_than_one_fix_are_said_in_words():
    groups = (BehaviourGroup(("a",), "pa", shipped=True), BehaviourGroup(("b",), "pb"))
    disagreement = Disagreement(groups=groups, plausible=3, measured=True, judgement=ModelJudgement(1, "b"))
    risks = (OverfitRisk("test_literal", "pkg/age.py: is_adult", "adds 18"),)
    confidence = assess(healed(disagreement=disagreement, overfit_risks=risks), MODEL)
    assert confidence.probability == 0.5  # 2.0 - 2.0 (open)
    assert confidence.reasons == (
        "the probability 0.50 is below the ready-for-review threshold 0.80",
        "the tests allow more than one fix: 2 groups of plausible patches behave differently on generated "
        "inputs",
        "it may fit the tests rather than the bug (1 overfit risk)",
        "the model reads the code as meaning another of the plausible fixes",
        "one failing test and 3 plausible patches",
    )


def test_a_fix_the_tests_leave_open_is_never_ready_whatever_its_probability():
    groups = (BehaviourGroup(("a",), "pa", shipped=True), BehaviourGroup(("b",), "pb"))
    trusting = Calibration(version="test-2", intercept=3.0, terms=(), threshold=0.8)
    confidence = assess(
        healed(disagreement=Disagreement(groups=groups, plausible=2, measured=True)), trusting
    )
    assert (confidence.probability, confidence.ready) == (0.95, False)
    assert confidence.reasons[0] == (
        "the tests allow more than one fix: 2 groups of plausible patches behave differently on generated "
        "inputs"
    )


def test_a_patch_that_only_skips_the_failing_path_is_never_ready_whatever_its_probability():
    trusting = Calibration(version="test-2", intercept=3.0, terms=(), threshold=0.8)
    confidence = assess(healed(bypass=("pkg/age.py: is_adult",)), trusting)
    assert (confidence.probability, confidence.ready) == (0.95, False)
    assert confidence.reasons == ("it only skips the failing path",)
    assert assess(healed(), trusting).ready is True


def test_only_a_healed_patch_can_be_ready():
    partial = assess(healed(status=PARTIAL), MODEL)
    assert (partial.probability, partial.ready) == (0.82, False)
    assert partial.reasons[0] == "only part of the failing tests pass"
    refused = assess(healed(status=NOT_HEALED), MODEL)
    assert refused.ready is False and refused.reasons[0] == "the verdict does not hold (status not_healed)"
    assert assess(healed(fixes=(), patch=""), MODEL) is None


def test_the_shipped_calibration_loads_and_says_what_it_was_fitted_on():
    shipped = load_calibration()
    assert 0.5 <= shipped.threshold <= 1.0
    assert shipped.version.startswith("fit-")
    files = [d["file"] for d in shipped.provenance["data"]]
    assert files == [
        "evaluation/results/full-embedded-9f39014.json",
        "evaluation/results/realbugs-full-embedded-9f39014.json",
    ]
    assert "held-out expected calibration error" in shipped.measured_on
    assert {t.feature for t in shipped.terms} <= set(FEATURES)
    first, again = assess(healed()), assess(healed())
    assert first == again and first.model == shipped.version  # deterministic
    assert 0.0 <= first.probability <= 1.0
