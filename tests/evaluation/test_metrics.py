from __future__ import annotations

from dataclasses import replace

from evaluation.bench.metrics import (
    ChosenPatch,
    FamilyFigures,
    FirstPlausible,
    Summary,
    compare,
    families_of,
    fix_quality,
    group_metrics,
)
from evaluation.bench.record import first_plausible
from tests.evaluation.helpers import healed, make_run

RUNS = [
    healed("a", "x", wall_s=10.0, candidates_screened=100, screen_s=10.0),
    healed("b", "x", iterations=2, validated=False, wall_s=20.0, candidates_screened=50, screen_s=5.0),
    make_run("c", "y", iterations=3, wall_s=30.0, candidates_screened=150, screen_s=10.0),
    healed("d", "y", wall_s=40.0, tokens=1000, cost_usd=0.5),
]


def test_overall_rates_partition_into_first_pass_and_after_repair():
    overall = group_metrics(RUNS)
    assert (overall.tasks, overall.first_pass, overall.healed_after_repair) == (4, 2, 1)
    assert (overall.self_reported, overall.reference_validated, overall.overfitting) == (3, 2, 1)
    assert overall.first_pass_rate == 0.5
    assert overall.healed_after_repair_rate == 0.25
    assert overall.self_reported_rate == 0.75
    assert overall.reference_validated_rate == 0.5
    assert overall.avg_iterations == 1.75
    assert overall.median_wall_s == 25.0
    assert overall.candidates_per_s == 12.0  # 300 screenings in 25 s of screening
    assert overall.tokens_per_heal == 250.0
    assert overall.cost_usd == 0.5


def test_per_category_figures_and_the_overfitting_list():
    summary = Summary.of(RUNS)
    x, y = summary.categories["x"], summary.categories["y"]
    assert list(summary.categories) == ["x", "y"]
    assert (x.self_reported_rate, x.reference_validated_rate, x.median_wall_s, x.candidates_per_s) == (
        1.0, 0.5, 15.0, 10.0,
    )  # fmt: skip
    assert (y.self_reported_rate, y.reference_validated_rate, y.avg_iterations, y.tokens_per_heal) == (
        0.5, 0.5, 2.0, 500.0,
    )  # fmt: skip
    assert summary.overfitting == ("b",)


def test_no_runs_give_zeros_not_errors():
    empty = group_metrics([])
    assert (empty.tasks, empty.reference_validated_rate, empty.median_wall_s, empty.candidates_per_s) == (
        0,
        0,
        0,
        0,
    )


def test_first_plausible_is_the_screening_number_of_the_first_plausible_candidate():
    events = [
        {"node": "baseline"},
        {"node": "screen", "n": 1, "plausible": False},
        {"node": "screen", "n": 2, "plausible": False},
        {"node": "screen", "n": 3, "plausible": True},
        {"node": "screen", "n": 4, "plausible": True},
    ]
    assert first_plausible(events) == 3
    assert first_plausible(events[:3]) is None


def _document(runs):
    summary = Summary.of(runs)
    return {
        "tasks": [r.as_dict() for r in runs],
        "overall": summary.overall.as_dict(),
        "categories": {k: v.as_dict() for k, v in summary.categories.items()},
    }


def test_compare_with_a_baseline_gives_deltas_and_the_tasks_that_flipped():
    before = _document([healed("a", "x", task_digest="ffffffffffff"), make_run("b", "x"), healed("c", "y")])
    after = _document([healed("a", "x"), healed("b", "x"), make_run("c", "y"), healed("d", "y")])
    diff = compare(after, before)
    assert diff["overall"]["reference_validated_rate"] == round(3 / 4 - 2 / 3, 4)
    assert diff["overall"]["self_reported_rate"] == round(3 / 4 - 2 / 3, 4)
    assert diff["categories_reference_validated_rate"] == {"x": 0.5, "y": -0.5}
    assert diff["newly_validated"] == ["b"]
    assert diff["no_longer_validated"] == ["c"]
    assert diff["not_in_baseline"] == ["d"]
    assert diff["changed_tasks"] == ["a"]  # edited since the baseline ran


# the shipped fix's families, screenings until the first plausible candidate and in all, and
# whether the patch is the reference fix
QUALITY_RUNS = [
    replace(healed("a", "x"), first_plausible=2, candidates_screened=42, matches_reference=True),
    replace(
        healed("b", "x", validated=False),
        fix_family="name", first_plausible=87, candidates_screened=90, matches_reference=False,
    ),
    replace(
        healed("c", "y", iterations=2),
        fix_family="comparison-operator, off-by-one+off-by-one", first_plausible=10, candidates_screened=60,
        matches_reference=False,
    ),
    make_run("d", "y", status="partial", fix_family="arithmetic-operator+name", candidates_screened=1389),
    make_run("e", "y", first_plausible=145, candidates_screened=150),  # plausible, yet not healed
    replace(healed("f", "z"), fix_family="builtin-swap", first_plausible=3, candidates_screened=3),
    make_run("g", "z", status="timeout"),
]  # fmt: skip


def test_families_split_pairs_and_rounds_and_count_once():
    assert families_of("comparison-operator, off-by-one+off-by-one") == ["comparison-operator", "off-by-one"]
    assert families_of("a+b") == ["a", "b"]
    assert families_of(None) == families_of("") == []


def test_fix_quality_per_family_most_used_first():
    assert fix_quality(QUALITY_RUNS).families == (
        FamilyFigures(
            "comparison-operator", tasks=2, self_reported=2, reference_validated=2, matches_reference=1
        ),
        FamilyFigures("name", tasks=2, self_reported=1, reference_validated=0, matches_reference=0),
        FamilyFigures("builtin-swap", tasks=1, self_reported=1, reference_validated=1, matches_reference=0),
        FamilyFigures("off-by-one", tasks=1, self_reported=1, reference_validated=1, matches_reference=0),
        FamilyFigures(
            "arithmetic-operator", tasks=1, self_reported=0, reference_validated=0, matches_reference=0
        ),
    )


def test_fix_quality_candidates_until_the_first_plausible_one():
    # over a, b, c, e, f: 2, 87, 10, 145, 3 screenings; then 40, 3, 50, 5, 0 more
    assert fix_quality(QUALITY_RUNS).first_plausible == FirstPlausible(
        tasks=5, median=10.0, mean=49.4, max=145, after_median=5.0
    )


def test_fix_quality_of_the_chosen_patch():
    # a, b, c, f reported healed; b overfits; only a's patch is the reference fix; f was not compared
    assert fix_quality(QUALITY_RUNS).chosen_patch == ChosenPatch(
        self_reported=4,
        compared=3,
        reference_validated=3,
        matches_reference=1,
        reference_validated_rate=0.75,
        matches_reference_rate=0.25,
    )
    assert Summary.of(QUALITY_RUNS).fix_quality == fix_quality(QUALITY_RUNS)


def test_fix_quality_of_no_fix_is_empty_not_an_error():
    quality = fix_quality([make_run("a", "x"), make_run("b", "x", status="error")])
    assert quality.families == ()
    assert quality.first_plausible == FirstPlausible(
        tasks=0, median=None, mean=None, max=None, after_median=None
    )
    assert quality.chosen_patch == ChosenPatch(0, 0, 0, 0, 0.0, 0.0)
    inconsistent = make_run("c", "x", first_plausible=5, candidates_screened=3)
    assert fix_quality([inconsistent]).first_plausible.after_median == 0.0
