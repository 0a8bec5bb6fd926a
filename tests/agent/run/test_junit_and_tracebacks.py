from __future__ import annotations

import pytest

from selfheal.agent.run.junit import error_type, parse_junit
from selfheal.agent.run.tracebacks import Frame, parse_frames

JUNIT = b"""<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="2" tests="5">
<testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py" line="3" time="0.010">
  <properties><property name="selfheal_nodeid" value="tests/test_a.py::test_ok"/></properties>
</testcase>
<testcase classname="tests.test_a.TestX" name="test_bad[1-2]" file="tests/test_a.py" line="9" time="0.5">
  <properties><property name="selfheal_nodeid" value="tests/test_a.py::TestX::test_bad[1-2]"/></properties>
  <failure message="AssertionError: assert 3 == 4">Traceback (most recent call last):
  File "/ws/tests/test_a.py", line 10, in test_bad
    assert f(1) == 4
AssertionError: assert 3 == 4</failure>
</testcase>
<testcase classname="tests.test_a" name="test_skip" file="tests/test_a.py" line="12" time="0">
  <skipped type="pytest.skip" message="not today"/>
</testcase>
<testcase classname="tests.test_a" name="test_xf" file="tests/test_a.py" line="14" time="0">
  <skipped type="pytest.xfail" message="known"/>
</testcase>
<testcase classname="" name="tests.test_broken" time="0">
  <error message="collection failure">E   SyntaxError: invalid syntax</error>
</testcase>
</testsuite></testsuites>"""


def test_outcomes_by_exact_node_id():
    parsed = parse_junit(JUNIT)
    assert {n: o.outcome for n, o in parsed.outcomes.items()} == {
        "tests/test_a.py::test_ok": "passed",
        "tests/test_a.py::TestX::test_bad[1-2]": "failed",
        "tests/test_a.py::test_skip": "skipped",
        "tests/test_a.py::test_xf": "xfailed",
    }
    bad = parsed.outcomes["tests/test_a.py::TestX::test_bad[1-2]"]
    assert bad.message == "AssertionError: assert 3 == 4"
    assert bad.duration == 0.5
    assert "line 10, in test_bad" in bad.details


def test_collection_errors_are_not_tests():
    parsed = parse_junit(JUNIT)
    assert parsed.collection_errors == {"tests.test_broken": "E   SyntaxError: invalid syntax"}


def test_node_ids_rebuilt_without_the_plugin_property():
    xml = b"""<testsuite><testcase classname="pkg.tests.test_m.TestA" name="test_b[x]"
    file="pkg/tests/test_m.py" line="1" time="0.1"/></testsuite>"""
    assert list(parse_junit(xml).outcomes) == ["pkg/tests/test_m.py::TestA::test_b[x]"]


def test_native_frames_in_order():
    text = """Traceback (most recent call last):
  File "/ws/tests/test_a.py", line 10, in test_bad
    assert f(1) == 4
  File "/ws/pkg/mod.py", line 3, in f
    return 1 / 0
ZeroDivisionError: division by zero"""
    assert parse_frames(text) == [
        Frame("/ws/tests/test_a.py", 10, "test_bad"),
        Frame("/ws/pkg/mod.py", 3, "f"),
    ]


def test_pytest_style_frames():
    text = "pkg/mod.py:3: in f\n    return 1 / 0\nE   ZeroDivisionError: division by zero\n"
    assert parse_frames(text) == [Frame("pkg/mod.py", 3, "f")]


@pytest.mark.parametrize(
    ("message", "outcome", "kind"),
    [
        ("KeyError: 'port'", "failed", "KeyError"),
        ("AssertionError: assert [1] == [1, 2]", "failed", "AssertionError"),
        # the same failed assertion as a fork-worker's pytest words it, with its `+  where` line
        ("assert {'INFO': 1} == {'INFO': 2}\n +  where {'INFO': 1} = counts()", "failed", "AssertionError"),
        ("requests.exceptions.ConnectionError: refused", "error", "ConnectionError"),
        ("", "failed", "failed"),
        ("something went wrong", "error", "error"),
    ],
)
def test_the_exception_type_of_a_failure_message(message, outcome, kind):
    assert error_type(message, outcome) == kind
