"""selfheal's schema of report.json (contracts/heal-report.selfheal.schema.json) describes every field
`build_report` writes and no other: a field added to the report without the schema, or left in the
schema after the report dropped it, fails here. Every report.json the suite writes is also held to
it when the session ends (tests/conftest.py `report_sweep`)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import jsonschema
import pytest

from selfheal.agent.report.confidence import FEATURES
from selfheal.agent.report.reportjson import SCHEMA_VERSION, SELFHEAL_SCHEMA_VERSION, build_report
from selfheal.agent.report.result import ERROR, HealResult
from selfheal.cli import main
from selfheal.sandbox import SandboxInfo
from selfheal.sandbox.base import Fallback
from tests.conftest import (
    SCHEMA,
    SECTIONS_SCHEMA,
    ReportSweep,
    git,
    hand_made_reports,
    report_errors,
    reports_under,
    write_tree,
)

OWN = json.loads(SECTIONS_SCHEMA.read_text(encoding="utf-8"))

# a comparison one off: the search's fix and a constant changed instead behave differently on
# generated inputs, so the report carries groups, inputs, new tests and a confidence
REPO = {
    "pkg/__init__.py": "",
    "pkg/age.py": '''
        def is_adult(age):
            """Whether someone of `age` years is an adult.

            >>> is_adult(18)
            True
            """
            return age > 18
        ''',
    "tests/test_age.py": """
        from pkg.age import is_adult

        def test_adult_at_18():
            assert is_adult(18)

        def test_child_at_17():
            assert not is_adult(17)
        """,
}


@pytest.fixture(scope="module")
def healed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The report.json of a real heal, through the CLI."""
    root = tmp_path_factory.mktemp("contract")
    repo = root / "repo"
    repo.mkdir()
    write_tree(repo, REPO)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    assert main(["heal", str(repo), "--out", str(root / "out"), "--sandbox", "local"]) == 0
    return json.loads((root / "out" / "report.json").read_text(encoding="utf-8"))


def stopped_early() -> HealResult:
    """A heal that ended before its baseline: no facts of the sandbox, `auto` fell back to local."""
    result = HealResult(
        status=ERROR,
        repo="r",
        base_sha="",
        test_command="pytest",
        provider="none",
        sandbox=SandboxInfo("local", False, "rlimits only"),
        error="the workspace could not be made",
    )
    result.fell_back(Fallback("sandbox: local — no Docker engine answered", "dial unix /var/run/docker.sock"))
    return result


def test_the_schema_is_a_valid_2020_12_schema_of_a_closed_object():
    jsonschema.Draft202012Validator.check_schema(OWN)
    assert OWN["additionalProperties"] is False
    assert sorted(OWN["required"]) == sorted(OWN["properties"])
    assert OWN["properties"]["selfheal_schema_version"] == {
        "description": OWN["properties"]["selfheal_schema_version"]["description"],
        "const": SELFHEAL_SCHEMA_VERSION,
    }
    shared = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert shared["properties"]["schema_version"] == {"const": SCHEMA_VERSION}


def test_the_schemas_fields_are_exactly_those_build_report_writes(healed):
    early = build_report(stopped_early())
    assert set(OWN["properties"]) == set(early)
    assert set(OWN["properties"]) == set(healed)
    assert (healed["schema_version"], healed["selfheal_schema_version"]) == (
        SCHEMA_VERSION,
        SELFHEAL_SCHEMA_VERSION,
    )


def test_a_real_heal_and_a_heal_stopped_early_meet_both_contracts(healed):
    assert healed["status"] == "healed"
    # the sections whose nested shapes the schema pins are all there to be checked
    assert healed["confidence"] and healed["disagreement"]["groups"] and healed["new_tests"]
    assert healed["localization"] and healed["verdict"]["rules"] and healed["sandbox"]["facts"]
    assert report_errors(healed) == []
    early = build_report(stopped_early())
    assert early["sandbox"]["fallback"]["detail"] == "dial unix /var/run/docker.sock"
    assert "facts" not in early["sandbox"]
    assert report_errors(early) == []


def test_the_confidence_features_are_those_the_confidence_measures(healed):
    features = OWN["properties"]["confidence"]["properties"]["features"]
    assert set(features["properties"]) == set(FEATURES) == set(healed["confidence"]["features"])
    assert features["additionalProperties"] is False


def test_a_field_added_or_removed_anywhere_fails(healed):
    added = {**healed, "tally": 3}
    assert report_errors(added) == [
        "heal-report.selfheal.schema.json: $: Additional properties are not allowed ('tally' was unexpected)"
    ]
    removed = {k: v for k, v in healed.items() if k != "bypass"}
    assert report_errors(removed) == ["heal-report.selfheal.schema.json: $: 'bypass' is a required property"]
    nested = {**healed, "metrics": {**healed["metrics"], "heap_mb": 12}}
    assert report_errors(nested) == [
        "heal-report.selfheal.schema.json: $.metrics: "
        "Additional properties are not allowed ('heap_mb' was unexpected)"
    ]
    fix = {k: v for k, v in healed["fixes"][0].items() if k != "strategy"}
    assert report_errors({**healed, "fixes": [fix]}) == [
        "heal-report.selfheal.schema.json: $.fixes[0]: 'strategy' is a required property"
    ]


def test_the_sweep_finds_a_broken_report_and_leaves_hand_made_ones_alone(healed):
    # outside the session's basetemp: the sweep at the session's end must not find these
    with tempfile.TemporaryDirectory(prefix="selfheal-sweep-") as scratch:
        root = Path(scratch)
        (root / "run" / "nested").mkdir(parents=True)
        (root / "run" / "report.json").write_text(json.dumps(healed), encoding="utf-8")
        (root / "run" / "nested" / "report.json").write_text("{}", encoding="utf-8")
        by_hand = hand_made_reports(root / "by-hand" / "a")
        (by_hand / "report.json").write_text("{}", encoding="utf-8")
        (by_hand / "deeper").mkdir()
        (by_hand / "deeper" / "report.json").write_text("{}", encoding="utf-8")
        (root / "link").symlink_to(root / "run" / "nested", target_is_directory=True)
        broken = root / "run" / "nested" / "report.json"
        assert reports_under(root) == [broken, root / "run" / "report.json"]
        sweep = ReportSweep()
        sweep.sweep(root)
        assert (sweep.checked, list(sweep.problems)) == (2, [broken])
        assert "heal-report.schema.json: $: 'status' is a required property" in sweep.problems[broken]
        assert sweep.failure().startswith(
            f"1 of 2 report.json files the tests wrote miss a contract:\n{broken}:\n"
        )
