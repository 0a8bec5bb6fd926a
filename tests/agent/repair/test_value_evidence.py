"""What assertion messages say about the actual and expected values, and what that favours."""

from __future__ import annotations

from selfheal.agent.localize.spectrum import Localization
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.strategy import RepairContext
from selfheal.agent.repair.value_evidence import ValueEvidence, assertion_values, failing_numbers


def test_both_sides_of_a_pytest_assertion_message_are_read_as_literals():
    assert assertion_values("assert 12 == 15\n +  where 12 = total([3, 4, 5])") == (12, 15)
    assert assertion_values(
        "AssertionError: assert [1, 2] == [1, 2, 3]\n  Right contains one more item: 3"
    ) == (
        [1, 2],
        [1, 2, 3],
    )
    assert assertion_values("assert 'a-b' == 'a_b'") == ("a-b", "a_b")
    assert assertion_values("assert <Row object at 0x7f> == 3") is None
    assert assertion_values("ZeroDivisionError: division by zero") is None
    assert assertion_values("") is None


def test_numbers_of_the_failing_tests():
    text = "def test_a():\n    assert clamp(13, 0, 10) == 10\n    assert ok is True\n"
    assert failing_numbers({"tests/test_a.py::test_a": text}) == (13, 0, 10)


def test_what_a_mismatch_favours():
    off_by_one = ValueEvidence(mismatches=((4, 5),))
    assert (off_by_one.off_by_one, off_by_one.off_by_input, off_by_one.at_a_bound) == (True, False, False)
    by_input = ValueEvidence(mismatches=((10, 7),), numbers=(3, 7))
    assert (by_input.off_by_one, by_input.off_by_input, by_input.at_a_bound) == (False, True, True)
    clamp = ValueEvidence(mismatches=((-4, 0),))
    assert (clamp.at_a_bound, clamp.neutral) == (True, True)
    missing = ValueEvidence(mismatches=((["a", "b", "a"], ["a", "b"]),))
    assert (missing.items_missing, missing.neutral, missing.off_by_one) == (True, False, False)
    nothing = ValueEvidence(mismatches=(("x", "y"),))
    assert not any((nothing.off_by_one, nothing.off_by_input, nothing.at_a_bound, nothing.neutral))


def test_evidence_is_gathered_from_the_targets_messages_and_test_files():
    context = RepairContext(
        sources={},
        localization=Localization(lines=(), targets=(), had_coverage=False),
        targets=("tests/test_a.py::test_a", "tests/test_a.py::test_b"),
        passing=(),
        coverage=None,
        durations={},
        hints=Hints(),
        seed=0,
        baseline_messages={
            "tests/test_a.py::test_a": "assert 13 == 10",
            "tests/test_a.py::test_b": "assert 13 == 10",
            "tests/test_a.py::test_c": "assert 1 == 2",
        },
        target_tests={"tests/test_a.py::test_a": "def test_a():\n    assert clamp(13, 10) == 10\n"},
    )
    assert ValueEvidence.of(context) == ValueEvidence(mismatches=((13, 10),), numbers=(13, 10))
