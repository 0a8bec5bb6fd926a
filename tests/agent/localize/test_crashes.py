"""Crash sites out of native tracebacks, and their place in the localization."""

from __future__ import annotations

from selfheal.agent.localize.crashes import crash_sites
from selfheal.agent.localize.spectrum import localize
from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.testrun import CoverageMap

ROOT = "/work/repo"
NAME_ERROR = """Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/_pytest/python.py", line 166, in pytest_pyfunc_call
    result = testfunction(**testargs)
  File "/work/repo/tests/test_m.py", line 3, in test_f
    assert f([1]) == 1
           ^^^^^^
  File "/work/repo/pkg/m.py", line 5, in f
    return totl
           ^^^^
NameError: name 'totl' is not defined. Did you mean: 'total'?"""
CHAINED = """Traceback (most recent call last):
  File "/work/repo/tests/test_m.py", line 8, in test_h
    g({})
  File "/work/repo/pkg/m.py", line 7, in g
    return d["k"]
           ~^^^^^
KeyError: 'k'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/work/repo/tests/test_m.py", line 10, in test_h
    raise ValueError("x") from e
ValueError: x"""
LIBRARY = """Traceback (most recent call last):
  File "/work/repo/pkg/m.py", line 9, in load
    return json.loads(text)
  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"""
THROUGH_A_CALL = """Traceback (most recent call last):
  File "/work/repo/tests/test_m.py", line 4, in test_port
    as_port("port", None)
  File "/work/repo/pkg/settings.py", line 12, in as_port
    port = _number(value)
  File "/work/repo/pkg/numbers.py", line 2, in _number
    return int(value, 10)
TypeError: int() can't convert non-string with explicit base"""
SOURCE = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return totl\n" + "\n" * 5


def outcome(nodeid: str, details: str) -> TestOutcome:
    return TestOutcome(nodeid, "failed", details.splitlines()[-1], details)


def test_the_deepest_project_frame_and_the_exception_line_with_its_suggestion() -> None:
    crashes = crash_sites(["t::f"], {"t::f": outcome("t::f", NAME_ERROR)}, {"pkg/m.py"}, ROOT)
    assert [(c.file, c.line, c.exception, c.message, c.suggestion, c.raised_here) for c in crashes] == [
        ("pkg/m.py", 5, "NameError", "name 'totl' is not defined", "total", True)
    ]


def test_a_chained_traceback_keeps_the_crash_in_project_source() -> None:
    crashes = crash_sites(["t::h"], {"t::h": outcome("t::h", CHAINED)}, {"pkg/m.py"}, ROOT)
    assert [(c.file, c.line, c.exception, c.message) for c in crashes] == [("pkg/m.py", 7, "KeyError", "'k'")]


def test_a_crash_records_every_project_frame_it_passed_through_outermost_first() -> None:
    sources = {"pkg/settings.py", "pkg/numbers.py"}
    crashes = crash_sites(["t::p"], {"t::p": outcome("t::p", THROUGH_A_CALL)}, sources, ROOT)
    assert [(c.file, c.line, c.through) for c in crashes] == [
        ("pkg/numbers.py", 2, (("pkg/settings.py", 12), ("pkg/numbers.py", 2)))
    ]


def test_an_exception_raised_in_a_library_names_the_project_call_and_its_short_class() -> None:
    crashes = crash_sites(["t::l"], {"t::l": outcome("t::l", LIBRARY)}, {"pkg/m.py"}, ROOT)
    assert [(c.line, c.exception, c.raised_here) for c in crashes] == [(9, "JSONDecodeError", False)]


def test_a_crash_line_coverage_never_saw_ranks_first() -> None:
    # coverage saw lines 1-4 in the failing test (a tracer of the project's own hid line 5)
    coverage = CoverageMap(
        tests={"t::f": {"pkg/m.py": frozenset({1, 2, 3, 4})}, "t::ok": {"pkg/m.py": frozenset({1, 2})}}
    )
    found = localize(
        failing=["t::f"],
        passing=["t::ok"],
        outcomes={"t::f": outcome("t::f", NAME_ERROR)},
        coverage=coverage,
        sources={"pkg/m.py": SOURCE},
        root=ROOT,
    )
    assert (found.lines[0].file, found.lines[0].line) == ("pkg/m.py", 5)
    assert found.lines[0].score == max(s.score for s in found.lines[1:])
    assert found.crashes[0].exception == "NameError"
