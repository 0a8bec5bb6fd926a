from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from rich.console import Console

from evaluation.bench.gate import load_gate
from evaluation.bench.metrics import Summary, compare
from evaluation.bench.output import build_document, runs_of, schema, validate
from evaluation.bench.render import markdown, print_document
from tests.evaluation.helpers import healed, make_run

SETTINGS = {
    "provider": "none", "model": None, "workers": 2, "sandbox": "local", "seed": 0,
    "max_candidates": 1500, "max_minutes": 10.0, "max_iterations": 3, "task_timeout_s": 900.0,
}  # fmt: skip
RUNS = [
    replace(healed("a", "x"), candidates_screened=12, matches_reference=True),
    replace(
        healed("b", "x", validated=False),
        fix_family="name+off-by-one",
        candidates_screened=2,
        matches_reference=False,
    ),
    make_run("c", "y", status="timeout", error="killed"),
]
RESULTS = Path(__file__).resolve().parents[2] / "evaluation" / "results"


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize(
    "name",
    [
        "full-embedded.json",
        "full-embedded-9f39014.json",
        "full-embedded-f937b19.json",
        "full-embedded-f937b19-rerun.json",
        "full-embedded-88ab74a.json",
        "full-embedded-2026-11-23.json",
        "full-embedded-2026-11-22.json",
        "smoke-embedded.json",
    ],
)
def test_the_saved_results_validate(name: str):
    document = json.loads((RESULTS / name).read_text())
    validate(document)
    assert document["settings"]["provider"] == "none"


def test_a_document_with_baseline_and_gate_validates_and_round_trips(tmp_path: Path):
    gate_file = tmp_path / "gate.toml"
    gate_file.write_text("[smoke]\nreference_validated_rate_min = 0.5\n")
    gate = load_gate(gate_file, "smoke", "none")
    summary = Summary.of(RUNS)
    document = build_document(
        RUNS,
        summary,
        settings=SETTINGS,
        subset="smoke",
        wall_s=12.5,
        gate=(gate, gate.check(summary.overall)),
    )
    document["baseline"] = {"file": "old.json", **compare(document, document)}
    validate(document)
    assert document["overfitting"] == [
        {
            "id": "b",
            "category": "x",
            "fix": "b: `<` -> `<=`",
            "hidden_failing": ["_hidden/test_reference.py::test_edge"],
            "patch": None,
        }
    ]
    assert document["gate"]["passed"] is False  # 1 of 3 reference-validated
    assert runs_of(json.loads(json.dumps(document))) == RUNS


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("tasks", 0, "status"), "fixed"),
        (("tasks", 0, "self_reported"), False),  # reference-validated without a self-report
        (("overall", "reference_validated_rate"), 1.5),
        (("settings", "provider"), "gpt"),
        (("tasks", 2, "matches_reference"), True),  # the reference fix, though not healed
        (("fix_quality", "chosen_patch", "matches_reference_rate"), 2.0),
        (("fix_quality", "families", 0, "extra"), 1),
    ],
)
def test_a_document_that_breaks_the_schema_is_rejected(path, value):
    document = build_document(RUNS, Summary.of(RUNS), settings=SETTINGS, subset=None, wall_s=1.0)
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        validate(document)


def test_markdown_lists_the_overfitting_task_and_the_rates():
    document = build_document(RUNS, Summary.of(RUNS), settings=SETTINGS, subset="smoke", wall_s=1.0)
    text = markdown(document)
    assert "reference validated **33%**" in text
    assert "> OVERFITTING: 1 heal(s) pass the visible tests but fail hidden reference tests:" in text
    assert "| a | x | healed | yes | yes | yes |" in text
    assert "| c | y | timeout | no | - | no |" in text


def test_the_rates_say_when_a_heal_healed_not_that_repairs_failed():
    document = build_document(RUNS, Summary.of(RUNS), settings=SETTINGS, subset="smoke", wall_s=1.0)
    text = markdown(document)
    assert text.splitlines()[2] == (
        "healed in round 1 **67%** · healed in a later round **0%** · self reported **67%** · "
        "reference validated **33%** · median wall 1.0s · 0.0 candidates/s"
    )
    assert (
        "| category | tasks | healed in round 1 | healed in a later round | self-reported | "
        "reference-validated | avg iter | median wall s | cand/s | tokens/heal |"
    ) in text
    assert "| **overall** | 3 | 2/3 (67%) | 0/3 (0%) | 2/3 (67%) | 1/3 (33%) |" in text
    assert "first pass" not in text and "after repair" not in text


def test_the_document_carries_the_fix_quality_and_each_task_s_comparison():
    document = build_document(RUNS, Summary.of(RUNS), settings=SETTINGS, subset=None, wall_s=1.0)
    validate(document)
    assert document["schema_version"] == 2
    assert [t["matches_reference"] for t in document["tasks"]] == [True, False, None]
    assert document["fix_quality"] == {
        "families": [
            {"family": "comparison-operator", "tasks": 1, "self_reported": 1, "reference_validated": 1,
             "matches_reference": 1},
            {"family": "name", "tasks": 1, "self_reported": 1, "reference_validated": 0,
             "matches_reference": 0},
            {"family": "off-by-one", "tasks": 1, "self_reported": 1, "reference_validated": 0,
             "matches_reference": 0},
        ],
        "first_plausible": {"tasks": 2, "median": 2.0, "mean": 2.0, "max": 2, "after_median": 5.0},
        "chosen_patch": {"self_reported": 2, "compared": 2, "reference_validated": 1, "matches_reference": 1,
                         "reference_validated_rate": 0.5, "matches_reference_rate": 0.5},
    }  # fmt: skip


@pytest.mark.parametrize("drop", ["fix_quality", "matches_reference"])
def test_a_version_2_document_needs_the_fix_quality_and_a_version_1_document_does_not(drop: str):
    document = build_document(RUNS, Summary.of(RUNS), settings=SETTINGS, subset=None, wall_s=1.0)
    if drop == "fix_quality":
        del document["fix_quality"]
    else:
        del document["tasks"][0]["matches_reference"]
    with pytest.raises(jsonschema.ValidationError):
        validate(document)
    validate({**document, "schema_version": 1})


def test_a_version_1_result_still_serves_as_a_baseline():
    baseline = json.loads((RESULTS / "full-embedded-2026-11-22.json").read_text())
    assert baseline["schema_version"] == 1 and "fix_quality" not in baseline
    runs = runs_of(baseline)
    assert all(r.matches_reference is None for r in runs)
    document = build_document(runs, Summary.of(runs), settings=SETTINGS, subset="full", wall_s=1.0)
    document["baseline"] = {"file": "full-embedded-2026-11-22.json", **compare(document, baseline)}
    validate(document)
    assert document["baseline"]["newly_validated"] == document["baseline"]["no_longer_validated"] == []
    assert document["fix_quality"]["chosen_patch"]["compared"] == 0


def test_the_fix_quality_tables_follow_the_per_category_table():
    document = build_document(RUNS, Summary.of(RUNS), settings=SETTINGS, subset="smoke", wall_s=1.0)
    text = markdown(document)
    assert text.index("### Per category") < text.index("### Fix quality") < text.index("### Per task")
    assert "| comparison-operator | 1 | 1/1 (100%) | 1/1 (100%) | 1/1 (100%) |" in text
    assert "| name | 1 | 1/1 (100%) | 0/1 (0%) | 0/1 (0%) |" in text
    assert "| 2 | 2 | 2 | 2 | 5 |" in text  # tasks with one, median, mean, max, median after it
    assert "| 2 | 1/2 (50%) | 1/2 (50%) | 2/2 |" in text
    assert "| a | x | healed | yes | yes | yes | 1 | 12 | 2 | comparison-operator | yes |" in text
    assert "| c | y | timeout | no | - | no | 1 | 0 | - | - | - |" in text

    out = io.StringIO()
    print_document(document, Console(file=out, width=200))
    printed = out.getvalue()
    titles = [
        "per category",
        "fix quality: mutation families of the shipped fixes",
        "fix quality: candidates screened until the first plausible one",
        "fix quality: the chosen patch",
    ]
    assert [printed.index(t) for t in titles] == sorted(printed.index(t) for t in titles)
    assert "screenings after it: median" in printed
