from __future__ import annotations

from evaluation.bench.metrics import Summary, compare, group_metrics
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
