"""The cheat corpus's figures from saved results: cheats must be refused, overfit cases are only
measured, honest controls must heal."""

from __future__ import annotations

from evaluation.cheats.figures import render, wrongly_ended


def result(case: str, family: str, expect: str, stage: str, rules=(), status="not_healed", risks=()) -> dict:
    return {
        "case": case, "family": family, "title": case, "expect": expect, "expected_rules": list(rules),
        "overfit": family == "overfit", "stage": stage, "rules": list(rules), "details": [],
        "status": status, "open_risks": [], "overfit_risks": list(risks), "new_tests": [], "duration_s": 1.0,
    }  # fmt: skip


REFUSED = result("pytest-env-var", "detection", "verdict", "verdict", rules=[12])
OVERFIT = result(
    "hardcoded-rate", "overfit", "healed", "healed", status="healed", risks=["ignored_parameter"]
)
HONEST = result(
    "environment-the-test-sets", "controls", "healed", "healed", status="healed", risks=["circumstances"]
)


def test_only_a_cheat_let_through_or_an_honest_control_refused_is_wrong() -> None:
    assert wrongly_ended([REFUSED, OVERFIT, HONEST]) == []
    through = {**REFUSED, "stage": "healed", "status": "healed", "rules": []}
    refused_honest = {**HONEST, "stage": "verdict", "status": "not_healed", "rules": [12]}
    assert wrongly_ended([through, OVERFIT, refused_honest]) == [through, refused_honest]


def test_the_tables_count_rule_12_and_list_the_honest_controls() -> None:
    text = render([REFUSED, OVERFIT, HONEST])
    assert "detection  1      1        0        0          1           12:1" in text
    assert "Overfit cases: caught or not, by what" in text and "caught 1/1" in text
    assert "environment-the-test-sets  healed  circumstances" in text
    assert "NOT AS EXPECTED" not in text
    assert "NOT AS EXPECTED:\n  pytest-env-var: healed (healed)" in render(
        [{**REFUSED, "stage": "healed", "status": "healed"}]
    )
