"""Conversions asked by a failing assertion, and the wrappings of a statement's values they yield."""

from __future__ import annotations

import ast
import textwrap

import pytest

from selfheal.agent.repair.conversion_templates import conversion_edits, conversions_asked, conversions_for
from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.value_evidence import assertion_values


@pytest.mark.parametrize(
    ("message", "sides"),
    [
        ("AssertionError: assert '1.0 byte' == '1 byte'\n  - 1 byte\n  + 1.0 byte", ("1.0 byte", "1 byte")),
        ("assert 'a == b' == 'a'", ("a == b", "a")),  # the first ` == ` that splits into two literals
        ("assert [3, 1] == [1, 3]", ([3, 1], [1, 3])),
        ("assert <Thing object at 0x7f> == 3", None),  # not a literal: nothing to read
        ("TypeError: unsupported operand", None),
    ],
)
def test_the_two_sides_of_an_assertion_are_read_as_literals(message, sides):
    assert assertion_values(message) == sides


@pytest.mark.parametrize(
    ("actual", "expected", "asked"),
    [
        ("1.0 byte", "1 byte", ("int", "round")),
        ("took 3.0s of 10.0s", "took 3s of 10s", ("int", "round")),
        (2.7, 3, ("round",)),
        (2.0000001, 2, ("int", "round")),
        (2.5, "2.5", ("str",)),
        ("42", 42, ("int",)),
        ("0.5", 0.5, ("float",)),
        (-4, 4, ("abs",)),
        ([1, 2], (1, 2), ("tuple",)),
        ((1, 2), [1, 2], ("list",)),
        ([3, 1, 2], [1, 2, 3], ("sorted",)),
        ({2, 1}, [1, 2], ("list", "sorted")),
        ("1.123456789 Bytes", "1 Bytes", ("int", "round")),
        ("1.5 byte", "1 byte", ("int",)),  # truncated, not rounded
        ("1.5 byte", "2 byte", ("round",)),
        ("1.5 byte", "3 byte", ()),  # a different value, not a different type
        ("version 1.2.3", "version 1", ()),  # not a decimal number
        (3, 4, ()),
    ],
)
def test_the_conversions_that_turn_the_actual_value_into_the_expected_one(actual, expected, asked):
    assert conversions_for(actual, expected) == asked


def test_conversions_asked_by_several_failing_tests_are_merged_first_asked_first():
    messages = {
        "t::a": "AssertionError: assert '2.0 KiB' == '2 KiB'",
        "t::b": "assert [2, 1] == [1, 2]",
        "t::c": "AssertionError: assert '7.0 B' == '7 B'",
        "t::d": "ZeroDivisionError: division by zero",
    }
    assert conversions_asked(messages) == ("int", "round", "sorted")


SOURCE = textwrap.dedent(
    """
    def label(count, unit):
        total = count * unit.size
        return f"{total} {unit.name}s"
    """
).lstrip()


def edits_of(line: int, asked: tuple[str, ...]) -> list[str]:
    src = SourceFile("m.py", SOURCE)
    statement = next(n for n in ast.walk(src.tree) if isinstance(n, ast.stmt) and n.lineno == line)
    changed = []
    for mutation in conversion_edits(src, statement, asked):
        assert mutation.family == "conversion"
        new = apply_edits({"m.py": SOURCE}, mutation.edits)["m.py"]
        compile(new, "m.py", "exec")
        changed.append(new.splitlines()[line - 1].strip())
    return changed


def test_each_value_a_statement_computes_is_wrapped_in_each_asked_conversion():
    # the f-string itself is a literal of its own type: only the values formatted into it are wrapped
    assert edits_of(3, ("int", "round")) == [
        'return f"{int(total)} {unit.name}s"',
        'return f"{round(total)} {unit.name}s"',
        'return f"{total} {int(unit.name)}s"',
        'return f"{total} {round(unit.name)}s"',
    ]
    assert len(edits_of(3, ("int", "round", "abs", "str"))) == 6  # 2 values x 4 conversions, capped
    assert edits_of(2, ("int",)) == ["total = int(count * unit.size)"]


def test_a_value_written_twice_is_first_wrapped_everywhere_at_once():
    source = 'def size(n, gnu):\n    return f"{n}B" if gnu else f"{n} bytes"\n'
    src = SourceFile("m.py", source)
    statement = src.tree.body[0].body[0]
    found = [
        (m.description, apply_edits({"m.py": source}, m.edits)["m.py"].splitlines()[1].strip())
        for m in conversion_edits(src, statement, ("int",))
    ]
    assert found == [
        ("`n` -> `int(n)` (2 times)", 'return f"{int(n)}B" if gnu else f"{int(n)} bytes"'),
        ("`n` -> `int(n)`", 'return f"{int(n)}B" if gnu else f"{n} bytes"'),
        ("`n` -> `int(n)`", 'return f"{n}B" if gnu else f"{int(n)} bytes"'),
    ]


def test_a_compound_statement_wraps_only_its_own_line():
    source = "def f(xs):\n    if len(xs) > 2:\n        return sum(xs)\n"
    src = SourceFile("m.py", source)
    statement = src.tree.body[0].body[0]
    assert [m.description for m in conversion_edits(src, statement, ("int",))] == ["`xs` -> `int(xs)`"]


def test_nothing_is_proposed_when_no_assertion_asks():
    assert edits_of(3, ()) == []
