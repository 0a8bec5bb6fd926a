"""evaluation/report_contract.py: a report.json is held to the shared contract and selfheal's schema."""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.report_contract import report_file_problems, report_problems


def test_each_problem_names_its_schema_and_where():
    problems = report_problems({"confidence": {"probability": 2}})
    assert "heal-report.schema.json: $: 'status' is a required property" in problems
    assert (
        "heal-report.selfheal.schema.json: $.confidence.probability: 2 is greater than the maximum of 1"
        in (problems)
    )
    # selfheal's schema requires every field it describes: a section left out is named
    assert "heal-report.selfheal.schema.json: $: 'disagreement' is a required property" in problems


def test_a_disagreement_section_is_checked_where_the_report_puts_it():
    problems = report_problems({"disagreement": "two groups"})
    assert [p for p in problems if "$.disagreement" in p] == [
        "heal-report.selfheal.schema.json: $.disagreement: 'two groups' is not of type 'object', 'null'"
    ]


def test_a_field_no_schema_describes_is_refused_by_selfheals():
    problems = report_problems({"surprise": 1})
    assert [p for p in problems if "surprise" in p] == [
        "heal-report.selfheal.schema.json: $: "
        "Additional properties are not allowed ('surprise' was unexpected)"
    ]
    assert not any(p.startswith("heal-report.schema.json") and "surprise" in p for p in problems)


def test_a_file_that_is_not_json_is_one_problem(tmp_path: Path):
    # named otherwise than report.json: the suite's sweep of every report.json stays out of it
    cut = tmp_path / "cut-short.json"
    cut.write_text('{"status": "heal', encoding="utf-8")
    assert [p.split(":")[0] for p in report_file_problems(cut)] == ["not a readable JSON document"]
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps({"status": "healed"}), encoding="utf-8")
    assert report_file_problems(whole) == report_problems({"status": "healed"})
    assert report_file_problems(tmp_path / "absent.json")[0].startswith("not a readable JSON document")
