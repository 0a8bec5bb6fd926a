from __future__ import annotations

from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.testrun import TestReport
from selfheal.bot.signature import branch_for, error_type, failure_signature


def report(**outcomes: tuple[str, str]) -> TestReport:
    return TestReport(
        status="ok",
        exit_code=1,
        outcomes={k: TestOutcome(k, outcome, message) for k, (outcome, message) in outcomes.items()},
        duration_s=1.0,
    )


def test_error_types() -> None:
    assert error_type("AssertionError: assert 1 == 2", "failed") == "AssertionError"
    assert error_type("builtins.ZeroDivisionError: division by zero", "failed") == "ZeroDivisionError"
    # pytest words a failed assertion with or without "AssertionError: ": one failure, one type
    assert error_type("assert [(1, 4)] == [(1, 3)]", "failed") == "AssertionError"
    assert error_type("Failed: Timeout >60.0s", "failed") == "failed"


def test_signature_is_stable_and_order_free() -> None:
    a = report(t1=("failed", "AssertionError: x"), t2=("error", "KeyError: 'k'"), t3=("passed", ""))
    b = report(t3=("passed", ""), t2=("error", "KeyError: 'other key'"), t1=("failed", "AssertionError: y"))
    assert failure_signature(a, (), "main") == failure_signature(b, (), "main")
    assert len(failure_signature(a, (), "main")) == 12


def test_signature_changes_with_the_failure_and_the_branch() -> None:
    base = report(t1=("failed", "AssertionError: x"))
    other_type = report(t1=("failed", "TypeError: x"))
    other_test = report(t2=("failed", "AssertionError: x"))
    sig = failure_signature(base, (), "main")
    assert sig != failure_signature(other_type, (), "main")
    assert sig != failure_signature(other_test, (), "main")
    assert sig != failure_signature(base, (), "release")
    with_flaky = report(t1=("failed", "AssertionError: x"), t9=("failed", "OSError: net"))
    assert failure_signature(with_flaky, ("t9",), "main") == sig
    assert branch_for(sig) == f"selfheal/{sig}"
