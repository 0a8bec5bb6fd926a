"""Rules 7-12 of the verdict on their own: the signed records, the same tests, the workspace outside
the patch, the test machinery, startup files, telling a test run apart. Real record files as the
plugin writes them."""

from __future__ import annotations

import hashlib
import hmac
import json

from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.records import RunRecords, new_key, read_records
from selfheal.agent.run.testrun import TestReport
from selfheal.agent.verdict import Evidence, judge

A, B = "tests/test_x.py::test_a", "tests/test_x.py::test_b"
PLUGIN_REBOUND = ("sys.unraisablehook",)


def signed(key: bytes, records: list[dict]) -> bytes:
    """Lines as selfheal_pytest_plugin writes them: each record chained to the last by an HMAC."""
    mac, lines = b"", []
    for record in records:
        body = json.dumps(record, sort_keys=True)
        mac = hmac.new(key, mac + body.encode(), hashlib.sha256).digest()
        lines.append(json.dumps({"record": body, "mac": mac.hex()}))
    return ("\n".join(lines) + "\n").encode()


def run(outcomes: dict[str, str], *, exit_code: int, records: RunRecords | None) -> TestReport:
    return TestReport(
        "ok", exit_code, {t: TestOutcome(t, o) for t, o in outcomes.items()}, 0.1, records=records
    )


def finished(
    outcomes: dict[str, str], exitstatus: int, rebound: tuple[str, ...] = PLUGIN_REBOUND
) -> RunRecords:
    return RunRecords(outcomes, finished=True, exitstatus=exitstatus, rebound=rebound)


BASELINE = run({A: "failed", B: "passed"}, exit_code=1, records=finished({A: "failed", B: "passed"}, 1))


def verdict_for(
    after: TestReport, *, changes: dict[str, str] | None = None, evidence: Evidence | None = None
):
    changes = changes or {"calc.py": "x = 2\n"}
    return judge(
        baseline=BASELINE, flaky=set(), after=after, changes=changes,
        base_texts={p: "x = 1\n" for p in changes}, patch="", protected=("tests/*",),
        applies=(True, "applies cleanly"), evidence=evidence,
    )  # fmt: skip


def failed_rules(verdict) -> dict[int, str]:
    return {r.number: r.detail for r in verdict.rules if not r.holds}


def test_an_honest_run_holds_with_the_five_rules_only() -> None:
    after = run({A: "passed", B: "passed"}, exit_code=0, records=finished({A: "passed", B: "passed"}, 0))
    verdict = verdict_for(after, evidence=Evidence(()))
    assert verdict.holds and [r.number for r in verdict.rules] == [1, 2, 3, 4, 5]


def test_records_chain_reads_back_and_a_forged_line_breaks_it() -> None:
    key = new_key()
    raw = signed(key, [
        {"kind": "test", "nodeid": A, "when": "call", "outcome": "failed"},
        {"kind": "finished", "exitstatus": 1, "rebound": []},
    ])  # fmt: skip
    assert read_records(raw, key) == RunRecords({A: "failed"}, finished=True, exitstatus=1)
    forged = raw.replace(b'\\"outcome\\": \\"failed\\"', b'\\"outcome\\": \\"passed\\"')
    assert read_records(forged, key).broken == "record 1 was forged, changed or moved"
    other_key = signed(new_key(), [{"kind": "finished", "exitstatus": 0, "rebound": []}])
    assert not read_records(other_key, key).complete
    assert not read_records(raw.splitlines()[0] + b"\n", key).complete  # cut before pytest's end
    assert read_records(None, key).broken.startswith("no records")


def test_a_junit_report_that_disagrees_with_the_records_is_refused_by_rule_7() -> None:
    after = run({A: "passed", B: "passed"}, exit_code=1, records=finished({A: "failed", B: "passed"}, 1))
    detail = failed_rules(verdict_for(after))[7]
    assert "the exit status 1" not in detail
    assert (
        "disagree on 1 test(s), e.g. tests/test_x.py::test_a: the XML says passed, the run said failed"
        in detail
    )


def test_an_exit_code_that_contradicts_pytest_is_refused_by_rule_7() -> None:
    after = run({A: "failed", B: "passed"}, exit_code=0, records=finished({A: "failed", B: "passed"}, 1))
    assert (
        "pytest ended with exit status 1 but the process exited with 0" in failed_rules(verdict_for(after))[7]
    )


def test_a_run_cut_short_never_counts() -> None:
    after = run({A: "passed", B: "passed"}, exit_code=0, records=RunRecords({A: "passed"}))
    verdict = verdict_for(after)
    assert not verdict.holds and verdict.status == "not_healed"
    assert failed_rules(verdict)[7].startswith("the run ended before pytest's end (exit code 0)")


def test_a_vanished_or_skipped_test_is_refused_by_rule_8() -> None:
    after = run({A: "passed"}, exit_code=0, records=finished({A: "passed", B: "skipped"}, 0))
    assert (
        "1 test(s) that ran at baseline were skipped: tests/test_x.py::test_b"
        in failed_rules(verdict_for(after))[8]
    )
    gone = run({A: "passed"}, exit_code=0, records=finished({A: "passed"}, 0))
    assert (
        "1 test(s) of the baseline did not run: tests/test_x.py::test_b" in failed_rules(verdict_for(gone))[8]
    )


def test_files_changed_by_the_run_are_refused_by_rule_9() -> None:
    after = run({A: "passed", B: "passed"}, exit_code=0, records=finished({A: "passed", B: "passed"}, 0))
    verdict = verdict_for(after, evidence=Evidence(("tests/test_x.py (changed)", "conftest.py (created)")))
    assert failed_rules(verdict) == {
        9: "the run changed files outside the patch: tests/test_x.py (changed), conftest.py (created)"
    }
    assert verdict.status == "not_healed"


def test_machinery_rebound_beyond_the_baseline_is_refused_by_rule_10() -> None:
    records = finished({A: "passed", B: "passed"}, 0, (*PLUGIN_REBOUND, "_pytest.python.Function.runtest"))
    after = run({A: "passed", B: "passed"}, exit_code=0, records=records)
    assert failed_rules(verdict_for(after)) == {
        10: "the code under test rebound the test machinery during the run: _pytest.python.Function.runtest"
    }


def test_startup_files_in_the_patch_are_refused_by_rule_11() -> None:
    after = run({A: "passed", B: "passed"}, exit_code=0, records=finished({A: "passed", B: "passed"}, 0))
    for path in (
        "sitecustomize.py",
        "src/usercustomize.py",
        "evil.pth",
        "shop-1.0.dist-info/entry_points.txt",
    ):
        assert 11 in failed_rules(verdict_for(after, changes={path: "x"})), path
    assert 11 not in failed_rules(verdict_for(after, changes={"shop/customize.py": "x"}))


SHOP = "import os\nimport sys\n\n\ndef total(prices, tax):\n    return round(sum(prices), 2)\n"


def shop_patch(body: str) -> str:
    return SHOP.replace("    return round(sum(prices), 2)\n", body + "    return round(sum(prices), 2)\n")


def test_a_patch_that_tells_a_test_run_apart_is_refused_by_rule_12() -> None:
    after = run({A: "passed", B: "passed"}, exit_code=0, records=finished({A: "passed", B: "passed"}, 0))
    aware = shop_patch(
        "    if 'PYTEST_CURRENT_TEST' in os.environ:\n        return round(sum(prices) * 1.1, 2)\n"
    )
    tests = {A: "from shop import total\n\n\ndef test_a():\n    assert total([10.0], 0.1) == 11.0\n"}
    verdict = judge(
        baseline=BASELINE, flaky=set(), after=after, changes={"shop.py": aware}, base_texts={"shop.py": SHOP},
        patch="", protected=("tests/*",), applies=(True, "applies cleanly"), failing_tests=tests,
    )  # fmt: skip
    assert verdict.status == "not_healed"
    assert failed_rules(verdict) == {
        12: "the patch tells a test run apart: `shop.py: total` reads os.environ for 'PYTEST_CURRENT_TEST' "
        "(the failing tests are not about the environment)"
    }
    # the same read, where the failing test sets that variable itself: what the test is about
    sets_it = "def test_a(monkeypatch):\n    monkeypatch.setenv('PYTEST_CURRENT_TEST', 'x')\n"
    about = {A: tests[A].replace("def test_a():\n", sets_it)}
    verdict = judge(
        baseline=BASELINE, flaky=set(), after=after, changes={"shop.py": aware}, base_texts={"shop.py": SHOP},
        patch="", protected=("tests/*",), applies=(True, "applies cleanly"), failing_tests=about,
    )  # fmt: skip
    assert verdict.holds and [r.number for r in verdict.rules] == [1, 2, 3, 4, 5]


def test_files_the_suite_itself_writes_on_every_run_are_not_the_patchs_doing(make_repo, run_heal):
    """An honest suite that writes into the repository on each run (a log with the time, a results
    file) changes those files in the verdict's run as in the baseline's: rule 9 is about what the
    patch's run changes beyond that."""
    repo = make_repo({
        "calc.py": "def double(x):\n    return x + x + 1\n",
        "tests/test_calc.py": (
            "import pathlib, time\n"
            "from calc import double\n\n"
            "def test_double():\n"
            "    pathlib.Path(__file__).with_name('last-run.txt').write_text(repr(time.time()))\n"
            "    assert double(4) == 8\n\n"
            "def test_zero():\n"
            "    assert double(0) == 0\n"
        ),
    })  # fmt: skip
    result = run_heal(repo)
    assert result.status == "healed"
    assert [r.number for r in result.verdict.rules] == [1, 2, 3, 4, 5]
    assert "calc.py" in result.patch and "last-run.txt" not in result.patch
