from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from evaluation.bench.gate import load_gate
from evaluation.bench.metrics import Summary, compare
from evaluation.bench.output import build_document, runs_of, schema, validate
from evaluation.bench.render import markdown
from tests.evaluation.helpers import healed, make_run

SETTINGS = {
    "provider": "none", "model": None, "workers": 2, "sandbox": "local", "seed": 0,
    "max_candidates": 1500, "max_minutes": 10.0, "max_iterations": 3, "task_timeout_s": 900.0,
}  # fmt: skip
RUNS = [
    healed("a", "x"),
    healed("b", "x", validated=False),
    make_run("c", "y", status="timeout", error="killed"),
]


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize("name", ["full-embedded.json", "smoke-embedded.json"])
def test_the_saved_results_validate(name: str):
    document = json.loads((Path(__file__).resolve().parents[2] / "evaluation" / "results" / name).read_text())
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
