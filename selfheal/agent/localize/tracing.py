"""Which tests run under the coverage tracer: only where coverage is needed.

Tracing every test of a large suite costs more than the rest of a heal. The spectrum needs the
failing tests' lines, and among the passing tests those that run the same code (they tell the
lines every test runs from the lines only the failing tests run). So coverage comes in two steps:

1. the failing tests, over every source file: what they run, and with their tracebacks the
   suspect functions;
2. the passing tests most likely to run the suspects, over the files the failing tests ran only:
   tests whose own source names a suspect (its class or function), then the tests of the failing
   tests' files, fastest first, up to `TracePlan`'s count and seconds.

A small suite (at most `TracePlan.in_baseline_below` test functions in its test files) is traced
in the baseline run itself, as before: there the tracer costs little, and a second run would cost
more. A suite of at most `TracePlan.whole_suite_below` passing tests is traced whole in one more
run after the baseline.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


TEST_FUNCTION = re.compile(r"^\s*(?:async\s+)?def\s+test", re.MULTILINE)


@dataclass(frozen=True)
class TracePlan:
    """Bounds of the coverage of passing tests on a large suite."""

    # at most this many test functions written in the test files: the baseline itself is traced
    # (one run, as small suites always were); parametrized and inherited tests make the real
    # count larger, so the bound is low
    in_baseline_below: int = 100
    whole_suite_below: int = 300  # at most this many passing tests: trace them all, at once
    max_tests: int = 200  # passing tests traced at most
    max_seconds: float = 20.0  # their baseline durations summed at most (the tracer slows them)

    def traces_baseline(self, test_files: Mapping[str, str]) -> bool:
        written = sum(len(TEST_FUNCTION.findall(text)) for text in test_files.values())
        return written <= self.in_baseline_below

    def traces_whole_suite(self, passing: int) -> bool:
        return passing <= self.whole_suite_below


def suspect_names(functions: Iterable[str]) -> list[str]:
    """The names a test would use to reach each suspect function, most suspicious first:
    `Word.__init__` -> `Word`; `Marker.evaluate` -> `Marker`, `evaluate`; `parse_line` ->
    `parse_line`. Private and dunder names are dropped (tests rarely spell them); a method's
    class stays."""
    names: dict[str, None] = {}
    for function in functions:
        if function in ("", "<module>"):
            continue
        for part in function.split("."):
            if part and not part.startswith("_") and part != "<locals>":
                names.setdefault(part, None)
    return list(names)


def sources_of_tests(test_files: Mapping[str, str]) -> dict[tuple[str, str], str]:
    """(test file, function name) -> the function's source, for every function of the test
    files (methods too, by their own name: a test class that inherits its tests from a base class
    finds them under the base's methods)."""
    found: dict[tuple[str, str], str] = {}
    for path, text in test_files.items():
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        lines = text.splitlines()  # once per file: ast.get_source_segment splits it per call
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                segment = "\n".join(lines[node.lineno - 1 : node.end_lineno])
                key = (path, node.name)
                found[key] = found.get(key, "") + "\n" + segment
    return found


def function_of(test: str) -> tuple[str, str]:
    """`tests/t.py::TestA::test_b[1-2]` -> (`tests/t.py`, `test_b`)."""
    file, _, rest = test.partition("::")
    name = rest.rsplit("::", 1)[-1].partition("[")[0]
    return file, name


def passing_to_trace(
    *,
    failing: list[str],
    passing: list[str],
    durations: Mapping[str, float],
    names: list[str],
    sources: Mapping[tuple[str, str], str],
    plan: TracePlan,
) -> list[str]:
    """The passing tests to trace on a large suite, in order of choice: those whose source names
    more suspects (the most suspicious weigh most), then those of a failing test's file, each
    group fastest first; until `plan.max_tests` tests or `plan.max_seconds` of baseline time."""
    weight = {name: 1.0 / (rank + 1) for rank, name in enumerate(names)}
    failing_files = {function_of(t)[0] for t in failing}
    words_of: dict[tuple[str, str], set[str]] = {}

    def relevance(test: str) -> float:
        key = function_of(test)
        if key not in words_of:
            words_of[key] = set(IDENTIFIER.findall(sources.get(key, "")))
        return sum(weight[n] for n in words_of[key] if n in weight)

    scored = [(relevance(t), function_of(t)[0] in failing_files, t) for t in passing]
    candidates = [s for s in scored if s[0] > 0 or s[1]]
    candidates.sort(key=lambda s: (-s[0], not s[1], durations.get(s[2], 0.0), s[2]))
    chosen: list[str] = []
    spent = 0.0
    for _, _, test in candidates:
        if len(chosen) >= plan.max_tests:
            break
        took = durations.get(test, 0.0)
        if chosen and spent + took > plan.max_seconds:
            continue
        chosen.append(test)
        spent += took
    return chosen
