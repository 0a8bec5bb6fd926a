"""report.json and its companions, from real heals of one small repo per status."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

from selfheal.agent.report.confidence import FEATURES, load_calibration
from selfheal.cli import main
from tests.conftest import SCHEMA, SECTIONS_SCHEMA, git, report_errors, write_tree

SHARED_SCHEMA = Path(__file__).resolve().parents[4] / "shared" / "contracts" / "heal-report.schema.json"

AGE = "def is_adult(age):\n    return age > 18\n"
GREET = 'def greet(name):\n    return "hello"\n'
REPOS: dict[str, dict[str, str]] = {
    "healed": {
        "pkg/__init__.py": "",
        "pkg/age.py": AGE,
        "tests/test_age.py": """
            from pkg.age import is_adult

            def test_adult_at_18():
                assert is_adult(18)

            def test_child_at_17():
                assert not is_adult(17)

            def test_adult_at_30():
                assert is_adult(30)
            """,
    },
    "nothing_to_heal": {
        "pkg/__init__.py": "",
        "pkg/two.py": "def two():\n    return 2\n",
        "tests/test_two.py": "from pkg.two import two\n\n\ndef test_two():\n    assert two() == 2\n",
    },
    "not_healed": {
        "pkg/__init__.py": "",
        "pkg/greet.py": GREET,
        "tests/test_greet.py": """
            from pkg.greet import greet

            def test_greet():
                assert greet("bob") == "Hello, bob!"
            """,
    },
    "error": {
        "pkg/__init__.py": "",
        "pkg/broken.py": "def f(:\n    return 2\n",
        "tests/test_broken.py": "from pkg.broken import f\n\n\ndef test_f():\n    assert f() == 2\n",
    },
    # one failure a single mutation fixes, one that needs logic the code never had
    "partial": {
        "pkg/__init__.py": "",
        "pkg/people.py": AGE + "\n\n" + GREET,
        "tests/test_people.py": """
            from pkg.people import greet, is_adult

            def test_adult_at_18():
                assert is_adult(18)

            def test_child_at_17():
                assert not is_adult(17)

            def test_greet():
                assert greet("bob") == "Hello, bob!"
            """,
    },
}
FLAGS = {"not_healed": ["--max-candidates", "30"], "partial": ["--max-candidates", "30"]}
EXIT_CODES = {"healed": 0, "nothing_to_heal": 0, "not_healed": 1, "error": 1, "partial": 1}
STATUSES = list(REPOS)

# A concrete lesson names where: a file:line of the project or a pytest node id.
LOCATION = re.compile(r"[\w./-]+\.py:\d+|[\w./-]+\.py::\w+")


@dataclass(frozen=True)
class Run:
    code: int
    repo: Path
    out: Path
    report: dict

    def text(self, name: str) -> str:
        return (self.out / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def heal_of(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Run]:
    """Heal the repo of a status once per module (through the CLI, as a user would)."""
    runs: dict[str, Run] = {}

    def get(status: str) -> Run:
        if status not in runs:
            root = tmp_path_factory.mktemp(status)
            repo = root / "repo"
            repo.mkdir()
            write_tree(repo, REPOS[status])
            git(repo, "init", "-q", "-b", "main")
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", "initial")
            out = root / "out"
            code = main(["heal", str(repo), "--out", str(out), "--sandbox", "local", *FLAGS.get(status, [])])
            report = json.loads((out / "report.json").read_text(encoding="utf-8"))
            runs[status] = Run(code, repo, out, report)
        return runs[status]

    return get


@pytest.fixture(scope="module")
def schema() -> dict:
    loaded = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


@pytest.mark.parametrize("status", STATUSES)
def test_report_validates_against_the_schema(status, heal_of, schema):
    run = heal_of(status)
    assert run.report["status"] == status
    assert run.code == EXIT_CODES[status]
    assert report_errors(run.report) == []  # the shared contract and selfheal's schema
    assert run.report["patch"] == run.text("patch.diff")


def test_selfheal_schema_describes_every_field_and_refuses_a_report_of_its_first_version(heal_of, schema):
    report = heal_of("healed").report
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(report))
    own = json.loads(SECTIONS_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(own)
    # the shared contract's fields are all described and required here too: selfheal's schema is the stricter
    assert set(schema["properties"]) <= set(own["properties"])
    assert set(schema["required"]) <= set(own["required"])
    assert own["properties"]["schema_version"]["const"] == schema["properties"]["schema_version"]["const"]
    validator = jsonschema.Draft202012Validator(own)
    assert not list(validator.iter_errors(report))
    # version 1 described two sections, each optional; version 2 requires every field
    older = {k: v for k, v in report.items() if k not in ("confidence", "selfheal_schema_version")}
    assert sorted(e.message for e in validator.iter_errors(older)) == [
        "'confidence' is a required property",
        "'selfheal_schema_version' is a required property",
    ]
    too_sure = {**report, "confidence": {**report["confidence"], "probability": 1.5}}
    assert [e.message for e in validator.iter_errors(too_sure)] == ["1.5 is greater than the maximum of 1"]
    unready = {**report, "confidence": {k: v for k, v in report["confidence"].items() if k != "ready"}}
    assert [e.message for e in validator.iter_errors(unready)] == ["'ready' is a required property"]


def test_the_schema_is_the_shared_contract():
    if not SHARED_SCHEMA.is_file():
        pytest.skip(f"no shared contract at {SHARED_SCHEMA}")
    assert SCHEMA.read_bytes() == SHARED_SCHEMA.read_bytes()


def test_healed_report_content(heal_of):
    run = heal_of("healed")
    report = run.report
    assert report["failures_before"] == ["tests/test_age.py::test_adult_at_18"]
    assert report["failures_after"] == []
    assert report["regressions"] == []
    assert report["files_changed"] == ["pkg/age.py"]
    assert report["patch"] == run.text("patch.diff")
    assert "-    return age > 18\n+    return age >= 18\n" in report["patch"]
    assert report["verdict"]["status"] == "healed"
    assert [(r["rule"], r["holds"]) for r in report["verdict"]["rules"]] == [
        (1, True),
        (2, True),
        (3, True),
        (4, True),
        (5, True),
    ]
    assert report["fixes"][0]["file"] == "pkg/age.py" and report["fixes"][0]["line"] == 2
    assert report["diagnosis"]["location"] == "pkg/age.py:2"
    assert report["metrics"]["validations"] >= 1
    assert report["project_dir"] == ""
    assert re.fullmatch(r"[0-9a-f]{40}", report["base_sha"])
    assert report["base_sha"] == git(run.repo, "rev-parse", "HEAD").strip()


def test_the_confidence_is_one_probability_in_the_report_and_the_pull_request_body(heal_of):
    run = heal_of("healed")
    confidence = run.report["confidence"]
    shipped = load_calibration()
    assert set(confidence) == {
        "probability",
        "ready",
        "threshold",
        "reasons",
        "features",
        "model",
        "measured_on",
    }
    assert confidence["probability"] == round(shipped.probability(confidence["features"]), 2)
    assert run.report["diagnosis"]["confidence"] == confidence["probability"]
    assert confidence["ready"] is (confidence["probability"] >= shipped.threshold)
    assert (confidence["threshold"], confidence["model"]) == (shipped.threshold, shipped.version)
    assert set(confidence["features"]) == set(FEATURES)
    features = confidence["features"]
    assert (features["failing_tests"], features["fixes"], features["bypass"], features["patch_lines"]) == (
        1, 1, False, 2
    )  # fmt: skip
    assert features["family"] == "comparison-operator" and features["screened_before"] >= 1
    # the plausible patches of this heal were compared, and the tests pin the fix
    assert features["open"] is False and features["groups_standing"] == 1
    verdict = "ready for review" if confidence["ready"] else "not ready for review: a draft"
    summary = run.text("summary.md")
    ready_at = f"(ready at {shipped.threshold:.2f} or more)"
    head = f"**Confidence {confidence['probability']:.2f}, {verdict}** {ready_at}"
    assert f"{head}: the probability that this patch is the right fix, {shipped.measured_on}." in summary
    assert "heuristic" not in summary
    for reason in confidence["reasons"]:
        assert f"\n- {reason}\n" in summary


def test_only_a_healed_patch_is_ready_and_a_heal_without_a_fix_has_no_confidence(heal_of):
    partial = heal_of("partial").report["confidence"]
    assert partial["ready"] is False and partial["reasons"][0] == "only part of the failing tests pass"
    assert heal_of("partial").report["diagnosis"]["confidence"] == partial["probability"]
    for status in ("not_healed", "nothing_to_heal", "error"):
        assert heal_of(status).report["confidence"] is None


def test_not_healed_and_error_reports_carry_no_patch(heal_of):
    not_healed = heal_of("not_healed").report
    assert not_healed["patch"] == "" and not_healed["files_changed"] == []
    assert (
        not_healed["failures_after"] == not_healed["failures_before"] == ["tests/test_greet.py::test_greet"]
    )
    assert not_healed["verdict"] is None and not_healed["diagnosis"] is None
    assert not_healed["metrics"]["candidates_tried"] <= 30
    error = heal_of("error").report
    assert error["patch"] == "" and error["failures_before"] == []
    assert error["error"].startswith("tests could not be collected:")
    assert "SyntaxError" in error["error"]


def test_partial_report_content(heal_of):
    run = heal_of("partial")
    report = run.report
    assert report["failures_before"] == [
        "tests/test_people.py::test_adult_at_18",
        "tests/test_people.py::test_greet",
    ]
    assert report["failures_after"] == ["tests/test_people.py::test_greet"]
    assert report["regressions"] == []
    assert report["files_changed"] == ["pkg/people.py"]
    assert "+    return age >= 18\n" in report["patch"]
    assert report["verdict"]["status"] == "partial"
    assert [r["holds"] for r in report["verdict"]["rules"]] == [False, True, True, True, True]


@pytest.mark.parametrize("status", ["healed", "not_healed", "partial", "error"])
def test_lessons_are_few_and_concrete(status, heal_of):
    run = heal_of(status)
    lessons = run.report["lessons"]
    assert 1 <= len(lessons) <= 5
    vague = [lesson for lesson in lessons if not LOCATION.search(lesson)]
    assert vague == [], f"lessons that name no file:line or test id: {vague}"
    assert run.text("lessons.md") == "# Lessons\n\n" + "".join(f"- {ln}\n" for ln in lessons)


def test_nothing_to_heal_has_no_lessons(heal_of):
    run = heal_of("nothing_to_heal")
    assert run.report["lessons"] == []
    assert run.text("lessons.md") == (
        "# Lessons\n\n- Nothing was repaired in this run, so there is no lesson to keep.\n"
    )


def test_partial_lessons_do_not_call_the_accepted_fix_ruled_out(heal_of):
    lessons = heal_of("partial").report["lessons"]
    fix = "`>` -> `>=` in `age > 18`"
    assert any(lesson.startswith("In `is_adult` (pkg/people.py:2)") and fix in lesson for lesson in lessons)
    ruled_out = [lesson for lesson in lessons if lesson.startswith("Ruled out")]
    assert all(f"e.g. {fix} (" not in lesson and f"; {fix} (" not in lesson for lesson in ruled_out), (
        ruled_out
    )


def test_error_names_repository_paths_not_the_deleted_sandbox(heal_of):
    report = heal_of("error").report
    shown = "\n".join([report["error"], *report["lessons"]])
    assert "selfheal-ws-" not in shown, shown  # a temporary copy that no longer exists
    assert "pkg/broken.py" in shown


@pytest.mark.parametrize(("status", "others"), [("healed", 2), ("partial", 1)])
def test_summary_has_a_verification_row_per_failing_test(status, others, heal_of):
    run = heal_of(status)
    summary = run.text("summary.md")
    assert "\n### Verification\n\n| test | before | after |\n|---|---|---|\n" in summary
    after = set(run.report["failures_after"])
    for test in run.report["failures_before"]:
        now = "❌ failed" if test in after else "✅ passed"
        assert f"\n| `{test}` | ❌ failed | {now} |\n" in summary
    assert f"\n| {others} other tests | ✅ passed | ✅ passed |\n" in summary


def test_summary_of_an_unverified_run_has_no_verification(heal_of):
    summary = heal_of("not_healed").text("summary.md")
    assert summary.startswith("## selfheal: not healed\n")
    assert "### Verification" not in summary
    assert "- `tests/test_greet.py::test_greet` — AssertionError: assert 'hello' == 'Hello, bob!'" in summary


def test_trace_is_one_json_object_per_line(heal_of):
    lines = heal_of("healed").text("trace.jsonl").splitlines()
    events = [json.loads(line) for line in lines]
    assert all(
        isinstance(e, dict) and isinstance(e["node"], str) and isinstance(e["start"], float) for e in events
    )
    nodes = [e["node"] for e in events]
    assert {"baseline", "flake_check", "localize", "repair", "validate"} <= set(nodes)
    firsts = [nodes.index(n) for n in ("baseline", "flake_check", "localize", "repair")]
    assert firsts == sorted(firsts)
    assert nodes[:2] == ["sandbox", "baseline"]  # the sandbox starts before anything runs
    assert nodes.index("validate") > nodes.index("repair")
    assert all(e["end"] >= e["start"] for e in events)
    validate = next(e for e in events if e["node"] == "validate")
    assert validate["status"] == "healed"


def test_trace_of_an_error_stops_at_the_baseline(heal_of):
    events = [json.loads(ln) for ln in heal_of("error").text("trace.jsonl").splitlines()]
    assert [e["node"] for e in events] == ["sandbox", "baseline"]
    assert events[1]["status"] == "collection_error"
