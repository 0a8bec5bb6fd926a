"""The confidence of a heal: the probability that the shipped patch is the right fix, and whether it
is ready for review.

    measure(result) -> features                 what the heal measured about its own patch
    assess(result) -> Confidence | None         the probability, ready or not, and why not
    load_calibration(path=None) -> Calibration  the model (calibration.json, shipped with the package)

Every shipped patch meets the verdict; the tests alone cannot tell "the one plausible patch among
800 candidates" from "one of 30 plausible patches that disagree on the next input". The features
below tell them apart as far as the heal measured them, and a logistic regression fitted on
benchmark heals labelled against the reference fixes (`python -m evaluation.calibration --fit`)
turns them into a probability. The fitted model is data (calibration.json): its terms, coefficients,
intercept, the ready-for-review threshold chosen from its held-out reliability, and where it was
fitted. A heal is ready for review when its probability, as shown (two decimals), reaches the
threshold.

A feature the heal did not measure is None, a value of its own: a term reading it contributes
nothing (as if the feature sat at the fitted data's mean), and a `missing` term, when the model has
one, carries what not measuring says.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from selfheal.agent.repair.mutation import PRIORS
from selfheal.agent.report.result import HEALED, PARTIAL, HealResult

CALIBRATION_FILE = "calibration.json"
AGREES, DISAGREES, UNDECIDED, NO_JUDGEMENT = "agrees", "disagrees", "undecided", "none"
BELOW = "the probability"  # how the reason a healed patch is not ready begins
CHANGES_CHECK = "it changes the check a failing test asserts with, which only the tests call"

# What each feature is (the keys of `measure`); report.json carries them as measured.
FEATURES: dict[str, str] = {
    "groups_standing": "behaviour groups of the distinct plausible patches that no oracle refutes "
    "(repair/disagreement.py); None: the patches were not compared",
    "open": "the tests allow more than one fix: several standing groups behave differently on "
    "generated inputs; None: not compared",
    "measured": "the changed functions could be called on generated inputs; None: not compared",
    "plausible": "distinct plausible patches: those compared, else the shipped one and the other "
    "plausible candidates of its round",
    "bypass": "the shipped patch only skips the failing path (repair/bypass.py)",
    "overfit_risks": "signs the patch fits the tests rather than the bug (repair/overfit.py)",
    "line_rank": "rank of the patched line among the localized lines, 1 = most suspicious (the "
    "worst over the fixes); None: a fixed line localization did not rank",
    "family": "mutation families of the fixes, as in report.json (informative, not a term)",
    "family_prior": "the families' prior in repair/mutation.py, the lowest over the fixes; None: a "
    "fix of no search family (a model's edit)",
    "screened_before": "candidates screened up to and including the first plausible one; None: not counted",
    "screened_after": "candidates screened after the first plausible one",
    "documented": "the chosen candidate's edit says what the code's documentation says "
    "(repair/documented.py), every fix; None: not judged (a fix not chosen among plausible ones)",
    "failing_tests": "failing tests the patch makes pass: what pins the fix",
    "new_tests_proven": "generated tests shipped with a fail->pass proof",
    "patch_lines": "lines the patch removes and adds",
    "source_lines": "lines of the project's Python files a repair may change: how much code the "
    "tests have to pin down; None: not counted",
    "fixes": "fixes the patch is made of (one per round that kept one)",
    "rounds": "repair rounds the heal ran",
    "judgement": "the model's reading of which behaviour group the code means: agrees (the "
    "shipped one), disagrees, undecided, or none (no judgement)",
}


@dataclass(frozen=True)
class Term:
    """One input of the logistic regression: a transform of one feature, standardised with the
    fitted data's `center` and `scale`."""

    name: str
    feature: str
    transform: str  # flag | positive | log2p1 | value | equals | at_least | missing
    coefficient: float = 0.0
    center: float = 0.0
    scale: float = 1.0
    argument: float | str | None = None  # what `equals` compares with, what `at_least` reaches
    # the range of the transformed value in the fitted data: a value outside it is read as its
    # nearest end, so a heal unlike any the model saw is not extrapolated to
    low: float | None = None
    high: float | None = None

    def raw(self, features: Mapping[str, Any]) -> float | None:
        """The transformed value before standardising; None: the feature was not measured."""
        value = features.get(self.feature)
        if self.transform == "missing":
            return 1.0 if value is None else 0.0
        if value is None:
            return None
        if self.transform == "flag":
            return 1.0 if value else 0.0
        if self.transform == "positive":
            return 1.0 if value > 0 else 0.0
        if self.transform == "log2p1":
            return math.log2(1.0 + max(float(value), 0.0))
        if self.transform == "value":
            return float(value)
        if self.transform == "equals":
            return 1.0 if value == self.argument else 0.0
        if self.transform == "at_least":
            return 1.0 if value >= self.argument else 0.0  # type: ignore[operator]
        raise ValueError(f"unknown transform {self.transform!r} of term {self.name!r}")

    def standardised(self, features: Mapping[str, Any]) -> float:
        raw = self.raw(features)
        if raw is None:
            return 0.0
        if self.low is not None:
            raw = max(raw, self.low)
        if self.high is not None:
            raw = min(raw, self.high)
        return (raw - self.center) / (self.scale or 1.0)

    def as_dict(self) -> dict[str, Any]:
        data = {
            "name": self.name, "feature": self.feature, "transform": self.transform,
            "coefficient": self.coefficient, "center": self.center, "scale": self.scale,
        }  # fmt: skip
        if self.argument is not None:
            data["argument"] = self.argument
        if self.low is not None and self.high is not None:
            data["range"] = [self.low, self.high]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Term:
        low, high = data.get("range") or (None, None)
        return cls(
            name=str(data["name"]), feature=str(data["feature"]), transform=str(data["transform"]),
            coefficient=float(data.get("coefficient", 0.0)), center=float(data.get("center", 0.0)),
            scale=float(data.get("scale", 1.0)), argument=data.get("argument"),
            low=low, high=high,
        )  # fmt: skip


@dataclass(frozen=True)
class Calibration:
    """A fitted logistic regression over `terms`, the ready-for-review threshold, and where they
    come from (`provenance`: the result files, commits, labels, how it was held out, the held-out
    figures)."""

    version: str
    intercept: float
    terms: tuple[Term, ...]
    threshold: float
    measured_on: str = ""  # one line for the pull request: what the probability was measured on
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def contributions(self, features: Mapping[str, Any]) -> dict[str, float]:
        """Each term's part of the log-odds."""
        return {t.name: t.coefficient * t.standardised(features) for t in self.terms}

    def probability(self, features: Mapping[str, Any]) -> float:
        logit = self.intercept + sum(self.contributions(features).values())
        return sigmoid(logit)

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "model": "logistic regression",
            "intercept": self.intercept,
            "terms": [t.as_dict() for t in self.terms],
            "threshold": self.threshold,
            "measured_on": self.measured_on,
            "provenance": dict(self.provenance),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        return cls(
            version=str(data["version"]), intercept=float(data["intercept"]),
            terms=tuple(Term.from_dict(t) for t in data["terms"]), threshold=float(data["threshold"]),
            measured_on=str(data.get("measured_on", "")), provenance=dict(data.get("provenance") or {}),
        )  # fmt: skip


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def load_calibration(path: Path | None = None) -> Calibration:
    """The calibration at `path`, or the one shipped with the package."""
    if path is None:
        return _shipped()
    return Calibration.from_dict(json.loads(path.read_text(encoding="utf-8")))


@cache
def _shipped() -> Calibration:
    text = resources.files(__package__).joinpath(CALIBRATION_FILE).read_text(encoding="utf-8")
    return Calibration.from_dict(json.loads(text))


@dataclass(frozen=True)
class Confidence:
    probability: float  # rounded to two decimals: the number every output shows
    ready: bool  # ready for review: a healed patch whose probability reaches the threshold
    threshold: float
    reasons: tuple[str, ...]  # in plain words, what lowers it; first, when not ready, why not
    features: Mapping[str, Any]
    model: str  # the calibration's version
    measured_on: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "probability": self.probability,
            "ready": self.ready,
            "threshold": self.threshold,
            "reasons": list(self.reasons),
            "features": dict(self.features),
            "model": self.model,
            "measured_on": self.measured_on,
        }


def assess(result: HealResult, calibration: Calibration | None = None) -> Confidence | None:
    """The probability that the shipped patch is right, and whether it is ready for review (only a
    healed patch can be); None when the heal kept no fix. The model was fitted on healed patches: a
    partial one's probability speaks of the part it fixed."""
    if not result.fixes:
        return None
    model = calibration or load_calibration()
    features = measure(result)
    probability = round(model.probability(features), 2)
    # a fix the tests leave open is a draft whatever the model says: which fix is meant, the
    # tests do not tell, and the pull request asks the reviewer to decide. So is one that only
    # skips the failing path: the tests cannot tell a missing guard from a bug in the code it skips
    # (too few heals were bypasses for the model to weigh them). And so is one that changes the
    # check a failing test asserts with: the tests then say nothing of the code they check
    changes_check = any(r.changes_the_check for r in result.overfit_risks)
    ready = (
        result.status == HEALED
        and probability >= model.threshold
        and not features.get("open")
        and not features.get("bypass")
        and not changes_check
    )
    reasons = concerns(features, model)
    if changes_check:
        reasons.insert(0, CHANGES_CHECK)
    if result.status == PARTIAL:
        reasons.insert(0, "only part of the failing tests pass")
    elif result.status != HEALED:
        reasons.insert(0, f"the verdict does not hold (status {result.status})")
    elif probability < model.threshold:
        below = (
            f"the probability {probability:.2f} is below the ready-for-review threshold {model.threshold:.2f}"
        )
        reasons.insert(0, below)
    return Confidence(
        probability, ready, model.threshold, tuple(reasons), features, model.version, model.measured_on
    )


def measure(result: HealResult) -> dict[str, Any]:
    """The features (`FEATURES`) of a result that ships fixes."""
    disagreement = result.disagreement
    fixes = result.fixes
    standing = len(disagreement.standing) if disagreement is not None else None
    plausible = disagreement.plausible if disagreement is not None else 1 + len(result.alternatives)
    priors = [_prior(f.family) for f in fixes]
    documented = [result.documented.get(f.key) for f in fixes]
    metrics = result.metrics
    return {
        "groups_standing": standing,
        "open": disagreement.open if disagreement is not None else None,
        "measured": disagreement.measured if disagreement is not None else None,
        "plausible": max(plausible, 1),
        "bypass": bool(result.bypass),
        "overfit_risks": len(result.overfit_risks),
        "line_rank": _line_rank(result),
        "family": ", ".join(f.family for f in fixes),
        "family_prior": None if not priors or None in priors else min(p for p in priors if p is not None),
        "screened_before": metrics.first_plausible_at,
        "screened_after": metrics.screened_after_plausible,
        "documented": None if None in documented or not documented else all(documented),
        "failing_tests": len(result.verdict.healed) if result.verdict else 0,
        "new_tests_proven": sum(1 for t in result.verdict.new_tests if t.kind == "fail_to_pass")
        if result.verdict
        else 0,
        "patch_lines": patch_lines(result.patch),
        "source_lines": metrics.source_lines,
        "fixes": len(fixes),
        "rounds": result.iterations,
        "judgement": _judgement(result),
    }


def patch_lines(patch: str) -> int:
    return sum(1 for line in patch.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))


def code_lines(texts: Mapping[str, str]) -> int:
    """Lines of the files' texts, as `str.splitlines` counts them."""
    return sum(len(text.splitlines()) for text in texts.values())


def _prior(family: str) -> float | None:
    """The lowest prior of a family name ("a+b": a pair of edits); None for a family the search does
    not have (a model's edit)."""
    priors = [PRIORS.get(part) for part in family.split("+")]
    return None if None in priors else min(p for p in priors if p is not None)


def _line_rank(result: HealResult) -> int | None:
    lines = result.localization.lines if result.localization else ()
    ranks = []
    for fix in result.fixes:
        score = next((s.score for s in lines if s.file == fix.file and s.line == fix.line), None)
        if score is None:
            return None
        ranks.append(1 + sum(1 for s in lines if s.score > score))  # ties share the better rank
    return max(ranks) if ranks else None


def _judgement(result: HealResult) -> str:
    disagreement = result.disagreement
    judgement = disagreement.judgement if disagreement is not None else None
    if judgement is None:
        return NO_JUDGEMENT
    standing = disagreement.standing  # the judgement's `preferred` indexes the standing groups
    if judgement.preferred is None or not 0 <= judgement.preferred < len(standing):
        return UNDECIDED
    return AGREES if standing[judgement.preferred].shipped else DISAGREES


NEGLIGIBLE = 0.1  # of the log-odds: a term that lowers it less says nothing worth a reason


def concerns(features: Mapping[str, Any], model: Calibration) -> list[str]:
    """What lowers the confidence, in plain words: the facts that argue against the patch whatever
    the model weighs them, then the model's terms that lower its log-odds, most first."""
    said: list[str] = []
    covered: set[str] = set()  # features a fact already put in words
    if features.get("bypass"):
        said.append("it only skips the failing path")
        covered.add("bypass")
    if features.get("open"):
        said.append(
            f"the tests allow more than one fix: {features.get('groups_standing')} groups of plausible "
            "patches behave differently on generated inputs"
        )
        covered |= {"open", "groups_standing"}
    risks = features.get("overfit_risks") or 0
    if risks:
        said.append(
            f"it may fit the tests rather than the bug ({risks} overfit risk{'s' if risks > 1 else ''})"
        )
        covered.add("overfit_risks")
    if features.get("judgement") == DISAGREES:
        said.append("the model reads the code as meaning another of the plausible fixes")
        covered.add("judgement")
    plausible = features.get("plausible") or 1
    if features.get("failing_tests") == 1 and plausible > 1:
        said.append(f"one failing test and {plausible} plausible patches")
    contributions = model.contributions(features)
    lowering = sorted(
        (contributions[t.name], i, t.feature)
        for i, t in enumerate(model.terms)
        if contributions[t.name] <= -NEGLIGIBLE
    )
    for _, _, feature in lowering:
        words = "" if feature in covered else _in_words(feature, features)
        if words and words not in said:
            said.append(words)
        covered.add(feature)
    return said


def _in_words(feature: str, features: Mapping[str, Any]) -> str:
    value = features.get(feature)
    if value is None:
        return {
            "line_rank": "localization did not rank the patched line",
            "documented": "",
            "family_prior": "the fix is not of a search family",
            "open": "the plausible patches were not compared on generated inputs",
        }.get(feature, "")
    phrases = {
        "line_rank": f"the patched line ranked {value} in localization",
        "family_prior": f"the fix is of a family the search rarely finds right ({features.get('family')})",
        "screened_before": f"the first plausible patch came after {value} candidates",
        "screened_after": f"{value} candidates were screened after the first plausible one",
        "documented": "its edit does not say what the code's documentation says",
        "failing_tests": "only one failing test pins the fix"
        if value == 1
        else f"{value} failing tests pin the fix",
        "new_tests_proven": "no generated test fails before the fix and passes with it"
        if value == 0
        else f"only {value} generated test(s) fail before the fix and pass with it",
        "patch_lines": f"the patch changes {value} lines",
        "source_lines": f"a large project ({value} lines a repair may change): there, fewer patches "
        "that pass the tests were the right fix",
        "fixes": f"it is made of {value} fixes",
        "rounds": f"it took {value} repair rounds",
        "plausible": f"{value} plausible patches passed the tests",
        "measured": "the changed functions could not be called on generated inputs",
    }
    return phrases.get(feature, "")


def confidence_line(confidence: Mapping[str, Any]) -> str:
    """One line for a console or a job summary, from report.json's `confidence`: the number, ready
    or not, and the first thing that lowers it besides the threshold."""
    head = f"confidence {confidence['probability']:.2f} that the patch is right"
    threshold = f"threshold {confidence['threshold']:.2f}"
    if confidence["ready"]:
        return f"{head}: ready for review ({threshold})"
    concern = next((r for r in confidence["reasons"] if not r.startswith(BELOW)), "")
    return f"{head}: not ready for review ({threshold})" + (f"; {concern}" if concern else "")
