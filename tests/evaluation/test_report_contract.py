"""evaluation/report_contract.py: a report.json is held to the shared contract and selfheal's sections."""

from __future__ import annotations

from evaluation.report_contract import report_problems


def test_each_problem_names_its_schema_and_where():
    problems = report_problems({"confidence": {"probability": 2}})
    assert "heal-report.schema.json: $: 'status' is a required property" in problems
    assert (
        "heal-report.selfheal.schema.json: $.confidence.probability: 2 is greater than the maximum of 1"
        in (problems)
    )
    assert not any("disagreement" in p for p in problems)  # a report without the section is fine


def test_a_disagreement_section_is_checked_where_the_report_puts_it():
    problems = report_problems({"disagreement": "two groups"})
    assert [p for p in problems if p.startswith("heal-report.selfheal.schema.json")] == [
        "heal-report.selfheal.schema.json: $.disagreement: 'two groups' is not of type 'object', 'null'"
    ]
