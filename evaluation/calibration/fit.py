"""Fitting the confidence: a logistic regression with an L2 penalty, its held-out reliability, and
the ready-for-review threshold chosen from it.

    usable_terms(heals) -> (terms, why each other candidate term is left out)
    select_terms(heals, terms) -> Selection: the terms forward selection keeps, its penalty and steps
    fit(heals, terms, l2) -> (intercept, terms with center, scale and coefficient)
    cross_validated(heals, terms, l2) -> held-out probability per heal
    leave_suite_out(heals, terms, l2) -> probability per heal, from a model fitted on the other suites
    choose_threshold(heals, probabilities) -> the lowest threshold at which every suite's ready heals
                                              are at least READY_PRECISION correct

The model: log-odds = intercept + sum of coefficient x (transform(feature) - center) / scale, over
the candidate terms the data supports (`usable_terms`: measured in most heals, and not nearly
constant, which no coefficient could be estimated for) that forward selection keeps (`select_terms`:
from the intercept alone, add the term that lowers the cross-validated log loss most, each model
at its best penalty, while a term lowers it by at least MIN_GAIN: with some 60 heals, every term
more is a coefficient estimated from little, and a model with all of them shrinks each towards
nothing and calibrates worse held out); a transformed value is clipped to the
range the fitted heals span, so the model does not extrapolate. Standardising makes one penalty fit all
terms; the intercept is not penalised. Newton's method on the penalised log-likelihood: no
randomness, the same coefficients for the same data.

Held out two ways: k-fold cross-validation over both suites together (folds stratified by the label,
assigned by a hash of suite and task id; repeated with other hashes, each heal's held-out
probability the mean over the repeats), and leave-one-suite-out (fitted on the other suite only:
how the model carries to code it was not fitted on). The penalty is the one with the lowest
cross-validated log loss; the threshold is chosen from the cross-validated probabilities, shown as
the heal shows them (two decimals).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from selfheal.agent.report.confidence import Term

CANDIDATE_TERMS: tuple[Term, ...] = (
    Term("bypass", "bypass", "flag"),
    Term("overfit_risks", "overfit_risks", "positive"),
    Term("open", "open", "flag"),
    Term("open:not compared", "open", "missing"),
    Term("judgement:disagrees", "judgement", "equals", argument="disagrees"),
    Term("plausible:log2", "plausible", "log2p1"),
    Term("line_rank:log2", "line_rank", "log2p1"),
    Term("family_prior", "family_prior", "value"),
    Term("screened_before:log2", "screened_before", "log2p1"),
    Term("screened_after:log2", "screened_after", "log2p1"),
    Term("documented", "documented", "flag"),
    Term("failing_tests:one", "failing_tests", "equals", argument=1),
    Term("new_tests_proven:log2", "new_tests_proven", "log2p1"),
    Term("patch_lines:log2", "patch_lines", "log2p1"),
    Term("source_lines:log2", "source_lines", "log2p1"),
    Term("fixes:several", "fixes", "at_least", argument=2),
)
MIN_KNOWN = 0.8  # a term's feature must be measured for this share of the heals
# ... and the heals whose value is not the most common one at least this many, and this share
MIN_MINORITY = 2
MIN_OTHERS_SHARE = 0.2  # (a term most heals share one value of gives the fit nothing to go on)
L2_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
FOLDS = 5
REPEATS = 10
READY_PRECISION = 0.9
THRESHOLDS = tuple(round(0.5 + i / 100, 2) for i in range(50))  # 0.50 .. 0.99
NEVER = 1.0  # the threshold when no candidate threshold keeps every suite precise enough
MIN_GAIN = 0.002  # of mean cross-validated log loss: a term that gains less is not kept


@dataclass(frozen=True)
class Heal:
    """One labelled heal: what it measured and whether its patch is reference-correct."""

    suite: str
    task: str
    features: Mapping[str, Any]
    correct: bool


def usable_terms(
    heals: Sequence[Heal], candidates: Sequence[Term] = CANDIDATE_TERMS
) -> tuple[list[Term], dict[str, str]]:
    kept: list[Term] = []
    left_out: dict[str, str] = {}
    for term in candidates:
        raws = [term.raw(h.features) for h in heals]
        known = [r for r in raws if r is not None]
        if not heals or len(known) < MIN_KNOWN * len(heals):
            left_out[term.name] = f"{term.feature} measured in {len(known)} of {len(heals)} heals"
            continue
        distinct = sorted(set(known))
        if len(distinct) < 2:
            left_out[term.name] = (
                f"{term.feature} takes one value ({distinct[0]:g}) in every heal that has it"
            )
            continue
        common = max(distinct, key=known.count)
        others = len(known) - known.count(common)
        if others < max(MIN_MINORITY, MIN_OTHERS_SHARE * len(known)):
            same = known.count(common)
            left_out[term.name] = (
                f"nearly constant: {same} of {len(known)} heals have the same value ({common:g})"
            )
            continue
        kept.append(term)
    return kept, left_out


@dataclass(frozen=True)
class Selection:
    terms: tuple[Term, ...]  # in the order they were kept
    l2: float
    losses: Mapping[float, float]  # the kept model's cross-validated log loss at each penalty
    steps: tuple[tuple[str, float], ...]  # ("intercept", loss), then (term kept, loss with it)
    not_kept: Mapping[str, float]  # each other usable term: the loss with it added to the kept ones


def select_terms(heals: Sequence[Heal], usable: Sequence[Term], grid: Sequence[float] = L2_GRID) -> Selection:
    """Forward selection by cross-validated log loss (deterministic: the folds are hashes)."""
    kept: list[Term] = []
    l2, losses = choose_l2(heals, [], grid)
    steps: list[tuple[str, float]] = [("intercept", losses[l2])]
    while True:
        trials: dict[str, float] = {}
        fits = {}
        for term in usable:
            if term in kept:
                continue
            best, found = choose_l2(heals, [*kept, term], grid)
            trials[term.name], fits[term.name] = found[best], (term, best, found)
        if not trials:
            break
        name = min(trials, key=lambda n: (trials[n], n))
        if trials[name] > steps[-1][1] - MIN_GAIN:
            break
        term, l2, losses = fits[name]
        kept.append(term)
        steps.append((name, trials.pop(name)))
    return Selection(tuple(kept), l2, losses, tuple(steps), trials)


def fit(heals: Sequence[Heal], terms: Sequence[Term], l2: float) -> tuple[float, list[Term]]:
    """The intercept and the terms with their center, scale and coefficient, fitted on `heals`."""
    standardised = []
    for term in terms:
        known = np.array([r for h in heals if (r := term.raw(h.features)) is not None], dtype=float)
        center = float(known.mean()) if known.size else 0.0
        scale = float(known.std()) if known.size else 0.0
        low, high = (
            (round(float(known.min()), 6), round(float(known.max()), 6)) if known.size else (None, None)
        )
        standardised.append(replace(
            term, center=round(center, 6), scale=round(scale, 6) if scale > 1e-9 else 1.0, low=low, high=high,
        ))  # fmt: skip
    x = design(heals, standardised)
    y = np.array([1.0 if h.correct else 0.0 for h in heals])
    weights = newton(x, y, l2)
    fitted = [
        replace(t, coefficient=round(float(w), 6)) for t, w in zip(standardised, weights[1:], strict=True)
    ]
    return round(float(weights[0]), 6), fitted


def design(heals: Sequence[Heal], terms: Sequence[Term]) -> np.ndarray:
    """Rows of [1, standardised terms...]."""
    rows = [[1.0, *(t.standardised(h.features) for t in terms)] for h in heals]
    return np.array(rows, dtype=float).reshape(len(heals), 1 + len(terms))


def newton(x: np.ndarray, y: np.ndarray, l2: float, iterations: int = 100) -> np.ndarray:
    """The weights minimising the log loss plus l2/2 x |w|^2 (the intercept, column 0, unpenalised)."""
    weights = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 1e-9  # keeps the Hessian invertible when every label is the same
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ weights)))
        gradient = x.T @ (p - y) + penalty * weights
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        weights = weights - step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return weights


def predict(intercept: float, terms: Sequence[Term], heals: Sequence[Heal]) -> list[float]:
    logits = design(heals, terms) @ np.array([intercept, *(t.coefficient for t in terms)])
    return [float(v) for v in 1.0 / (1.0 + np.exp(-logits))]


def folds_of(heals: Sequence[Heal], repeat: int, folds: int = FOLDS) -> list[int]:
    """Each heal's fold: stratified by the label, in the order of a hash of repeat, suite and task."""
    assigned = [0] * len(heals)
    for label in (True, False):
        members = [i for i, h in enumerate(heals) if h.correct is label]
        members.sort(
            key=lambda i: hashlib.sha256(f"{repeat}:{heals[i].suite}/{heals[i].task}".encode()).hexdigest()
        )
        offset = 0 if label else len([h for h in heals if h.correct]) % folds
        for position, i in enumerate(members):
            assigned[i] = (position + offset) % folds
    return assigned


def cross_validated(
    heals: Sequence[Heal], terms: Sequence[Term], l2: float, folds: int = FOLDS, repeats: int = REPEATS
) -> list[float]:
    """Each heal's probability from models that did not see it: the mean over the repeats."""
    sums = [0.0] * len(heals)
    for repeat in range(repeats):
        fold = folds_of(heals, repeat, folds)
        for k in range(folds):
            train = [h for h, f in zip(heals, fold, strict=True) if f != k]
            test = [i for i, f in enumerate(fold) if f == k]
            if not test or not train:
                continue
            intercept, fitted = fit(train, terms, l2)
            for i, p in zip(test, predict(intercept, fitted, [heals[i] for i in test]), strict=True):
                sums[i] += p
    return [s / repeats for s in sums]


def leave_suite_out(heals: Sequence[Heal], terms: Sequence[Term], l2: float) -> list[float | None]:
    """Each heal's probability from a model fitted on the other suites' heals; None when there is
    no other suite."""
    found: list[float | None] = [None] * len(heals)
    for suite in sorted({h.suite for h in heals}):
        train = [h for h in heals if h.suite != suite]
        test = [i for i, h in enumerate(heals) if h.suite == suite]
        if not train:
            continue
        intercept, fitted = fit(train, terms, l2)
        for i, p in zip(test, predict(intercept, fitted, [heals[i] for i in test]), strict=True):
            found[i] = p
    return found


def log_loss(heals: Sequence[Heal], probabilities: Sequence[float]) -> float:
    total = 0.0
    for heal, p in zip(heals, probabilities, strict=True):
        p = min(max(p, 1e-6), 1 - 1e-6)
        total -= math.log(p if heal.correct else 1 - p)
    return total / len(heals) if heals else 0.0


def choose_l2(
    heals: Sequence[Heal], terms: Sequence[Term], grid: Sequence[float] = L2_GRID
) -> tuple[float, dict[float, float]]:
    """The penalty with the lowest cross-validated log loss (ties: the stronger), and each one's loss."""
    losses = {l2: round(log_loss(heals, cross_validated(heals, terms, l2)), 4) for l2 in grid}
    best = min(grid, key=lambda l2: (losses[l2], -l2))
    return best, losses


def choose_threshold(heals: Sequence[Heal], probabilities: Sequence[float]) -> float:
    """The lowest threshold at which, in every suite, the heals at or above it (as shown: two
    decimals) are at least READY_PRECISION reference-correct; a suite with none above it holds."""
    suites = sorted({h.suite for h in heals})
    for threshold in THRESHOLDS:
        if all(_precise(heals, probabilities, suite, threshold) for suite in suites):
            return threshold
    return NEVER


def _precise(heals: Sequence[Heal], probabilities: Sequence[float], suite: str, threshold: float) -> bool:
    ready = [
        h.correct
        for h, p in zip(heals, probabilities, strict=True)
        if h.suite == suite and round(p, 2) >= threshold
    ]
    return not ready or sum(ready) / len(ready) >= READY_PRECISION
