from __future__ import annotations

import math
import textwrap

from selfheal.agent.localize.spectrum import FunctionIndex, localize, source_files
from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.testrun import CoverageMap

SOURCE = textwrap.dedent("""
    def area(w, h):
        if w < 0:
            return 0
        return w * h


    class Box:
        def volume(self, d):
            return area(self.w, self.h) * d
""").lstrip()


def test_function_index_names_innermost_functions():
    index = FunctionIndex(SOURCE)
    assert index.function_at(2) == "area"
    assert index.function_at(9) == "Box.volume"
    assert index.function_at(6) == "<module>"


def test_ochiai_ranks_the_line_only_failing_tests_run():
    coverage = CoverageMap(
        {
            "t::fail": {"m.py": frozenset({1, 2, 4})},
            "t::pass1": {"m.py": frozenset({1, 2, 3})},
            "t::pass2": {"m.py": frozenset({1, 2, 3})},
        }
    )
    found = localize(
        failing=["t::fail"],
        passing=["t::pass1", "t::pass2"],
        outcomes={},
        coverage=coverage,
        sources={"m.py": SOURCE},
        root="/ws",
    )
    top = found.lines[0]
    assert (top.file, top.line, top.function) == ("m.py", 4, "area")
    assert top.ochiai == 1.0
    line2 = next(s for s in found.lines if s.line == 2)
    assert math.isclose(line2.ochiai, 1 / math.sqrt(3))
    assert [t.function for t in found.targets] == ["area"]
    assert 3 not in {s.line for s in found.lines}  # never run by a failing test


def test_traceback_frames_in_project_source_add_weight():
    details = (
        "Traceback (most recent call last):\n"
        '  File "/ws/tests/test_m.py", line 5, in test_x\n'
        '  File "/ws/m.py", line 9, in volume\n'
        '  File "/ws/m.py", line 4, in area\n'
        '  File "/usr/lib/python3/site.py", line 1, in other\n'
        "TypeError: boom\n"
    )
    outcomes = {"t::fail": TestOutcome("t::fail", "failed", "TypeError: boom", details)}
    found = localize(
        failing=["t::fail"],
        passing=[],
        outcomes=outcomes,
        coverage=None,
        sources={"m.py": SOURCE},
        root="/ws",
    )
    assert [(s.line, s.traceback) for s in found.lines] == [(4, 1.0), (9, 0.8)]
    assert not found.had_coverage


def test_source_files_exclude_protected_and_follow_source_globs():
    files = [
        "pkg/a.py",
        "pkg/tests/test_a.py",
        "tests/conftest.py",
        "setup.py",
        "docs/x.md",
        "src/pkg/b.py",
        "tests/unit/deep/helpers.py",
        "src/pkg/check_test.py",
    ]
    protected = ("**/tests/**", "conftest.py", "*_test.py")
    assert source_files(files, protected) == ["pkg/a.py", "setup.py", "src/pkg/b.py"]
    assert source_files(files, protected, ("src/**/*.py",)) == ["src/pkg/b.py"]


def test_glob_semantics():
    from selfheal.agent.localize.spectrum import matches_any

    assert matches_any("a/b/tests/c/d.py", ("**/tests/**",))
    assert matches_any("tests/x.py", ("**/tests/**",))
    assert matches_any("deep/dir/test_thing.py", ("test_*.py",))
    assert not matches_any("pkg/contest.py", ("test_*.py", "conftest.py"))
    assert matches_any(".github/workflows/ci.yml", (".github/**",))
    assert not matches_any("src/github.py", (".github/**",))
    assert matches_any("src/pkg/mod.py", ("src/**/*.py",))
    assert not matches_any("lib/mod.py", ("src/**/*.py",))
