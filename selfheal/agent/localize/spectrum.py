"""Failing tests -> suspicious lines and functions.

Two kinds of evidence, combined per line:

- spectrum (SBFL, Ochiai): a line executed by many failing and few passing tests is suspicious,
  `ochiai = failed(l) / sqrt(total_failed * (failed(l) + passed(l)))`, from per-test coverage;
- traceback: frames of the failing tests' tracebacks that lie in project source (not tests, not
  site-packages); the frame that raised weighs most, callers less.

A crash site (the deepest project frame of a traceback, `crashes`) is a suspect whatever coverage
says: coverage is blind under a tracer the project installs itself, in threads and subprocesses,
so a crash line it never saw ranks level with the best line instead of at the traceback's weight.

Only project source files are ever suspects: files that the protected globs (tests, CI) do not
match, inside the workspace, and Python.
"""

from __future__ import annotations

import ast
import functools
import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass

from selfheal.agent.localize.crashes import Crash, crash_sites
from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.testrun import CoverageMap
from selfheal.agent.run.tracebacks import parse_frames

SPECTRUM_WEIGHT = 0.7
TRACEBACK_WEIGHT = 0.3
# the lines worth a first look: at least this share of the best line's suspiciousness
FIRST_LOOK_SHARE = 0.25


@dataclass(frozen=True)
class SuspiciousLine:
    file: str
    line: int
    score: float
    ochiai: float
    traceback: float
    function: str


@dataclass(frozen=True)
class Target:
    """A suspicious function: where repair effort goes first."""

    file: str
    function: str
    line: int
    suspiciousness: float

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "function": self.function,
            "line": self.line,
            "suspiciousness": round(self.suspiciousness, 4),
        }


@dataclass(frozen=True)
class Localization:
    lines: tuple[SuspiciousLine, ...]
    targets: tuple[Target, ...]
    had_coverage: bool
    crashes: tuple[Crash, ...] = ()

    def top_lines(self, limit: int = 40, floor: float = FIRST_LOOK_SHARE) -> list[SuspiciousLine]:
        if not self.lines:
            return []
        best = self.lines[0].score
        return [s for s in self.lines if s.score >= best * floor][:limit]

    def traceback_lines(self) -> dict[str, frozenset[int]]:
        """The lines of project source the failing tests' tracebacks pass through, by file."""
        found: dict[str, set[int]] = {}
        for suspect in self.lines:
            if suspect.traceback > 0:
                found.setdefault(suspect.file, set()).add(suspect.line)
        return {path: frozenset(lines) for path, lines in found.items()}


@functools.lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """`**` spans directories, `*` and `?` stay within one; a pattern without `/` names a file."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches_any(path: str, globs: tuple[str, ...]) -> bool:
    """Does a repo-relative path match one of the globs (gitignore-like semantics)?"""
    name = path.rsplit("/", 1)[-1]
    for pattern in globs:
        target = name if "/" not in pattern else path
        if _glob_regex(pattern).match(target):
            return True
    return False


def source_files(files: list[str], protected: tuple[str, ...], source: tuple[str, ...] = ()) -> list[str]:
    """Project Python files a repair may change."""
    chosen = []
    for path in files:
        if not path.endswith(".py") or matches_any(path, protected):
            continue
        if source and not matches_any(path, source):
            continue
        chosen.append(path)
    return chosen


class FunctionIndex:
    """Innermost enclosing function (qualified name) of each line of a file."""

    def __init__(self, text: str) -> None:
        self._spans: list[tuple[int, int, str]] = []
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return
        self._walk(tree, "")

    def _walk(self, node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    self._spans.append((start, child.end_lineno or child.lineno, name))
                inner = f"{name}.<locals>." if not isinstance(child, ast.ClassDef) else f"{name}."
                self._walk(child, inner)
            else:
                self._walk(child, prefix)

    def function_at(self, line: int) -> str:
        best = None
        for start, end, name in self._spans:
            if start <= line <= end and (best is None or start >= best[0]):
                best = (start, end, name)
        return best[2] if best else "<module>"


def localize(
    *,
    failing: list[str],
    passing: list[str],
    outcomes: dict[str, TestOutcome],
    coverage: CoverageMap | None,
    sources: dict[str, str],
    root: str,
) -> Localization:
    """Rank lines of `sources` ({relpath: text}) by how much they are to blame."""
    ochiai = _ochiai(failing, passing, coverage, set(sources)) if coverage else {}
    frames = _traceback_weights(failing, outcomes, set(sources), root)
    crashes = crash_sites(failing, outcomes, set(sources), root)
    indexes = {path: FunctionIndex(text) for path, text in sources.items()}

    scores: dict[tuple[str, int], float] = {}
    for key in set(ochiai) | set(frames):
        spectrum, trace = ochiai.get(key, 0.0), frames.get(key, 0.0)
        scores[key] = SPECTRUM_WEIGHT * spectrum + TRACEBACK_WEIGHT * trace if ochiai else trace
    best = max(scores.values(), default=0.0)
    for crash in crashes:
        key = (crash.file, crash.line)
        if crash.raised_here and ochiai.get(key, 0.0) == 0.0:
            scores[key] = max(scores.get(key, 0.0), best)
    lines = []
    for key, score in scores.items():
        if score <= 0:
            continue
        path, line = key
        spectrum, trace = ochiai.get(key, 0.0), frames.get(key, 0.0)
        lines.append(SuspiciousLine(path, line, score, spectrum, trace, indexes[path].function_at(line)))
    lines.sort(key=lambda s: (-s.score, -s.traceback, s.file, s.line))
    return Localization(tuple(lines), _targets(lines, indexes), bool(ochiai), crashes)


def _ochiai(
    failing: list[str], passing: list[str], coverage: CoverageMap, sources: set[str]
) -> dict[tuple[str, int], float]:
    failed_by: dict[tuple[str, int], int] = defaultdict(int)
    passed_by: dict[tuple[str, int], int] = defaultdict(int)
    for tests, counter in ((failing, failed_by), (passing, passed_by)):
        for test in tests:
            for path, lines in coverage.tests.get(test, {}).items():
                if path in sources:
                    for line in lines:
                        counter[(path, line)] += 1
    total_failed = len(failing)
    scores = {}
    for key, failed in failed_by.items():
        denominator = math.sqrt(total_failed * (failed + passed_by.get(key, 0)))
        if denominator:
            scores[key] = failed / denominator
    return scores


def _traceback_weights(
    failing: list[str], outcomes: dict[str, TestOutcome], sources: set[str], root: str
) -> dict[tuple[str, int], float]:
    weights: dict[tuple[str, int], float] = {}
    prefix = root.rstrip(os.sep) + os.sep
    for test in failing:
        outcome = outcomes.get(test)
        if outcome is None:
            continue
        frames = [f for f in parse_frames(outcome.details)]
        project = []
        for frame in frames:
            path = frame.file[len(prefix) :] if frame.file.startswith(prefix) else frame.file
            if path in sources:
                project.append((path, frame.line))
        for depth, key in enumerate(reversed(project)):
            weight = max(1.0 - 0.2 * depth, 0.3)
            weights[key] = max(weights.get(key, 0.0), weight)
    return weights


def _targets(lines: list[SuspiciousLine], indexes: dict[str, FunctionIndex]) -> tuple[Target, ...]:
    best: dict[tuple[str, str], SuspiciousLine] = {}
    for suspect in lines:
        key = (suspect.file, suspect.function)
        if key not in best:
            best[key] = suspect
    ranked = sorted(best.values(), key=lambda s: (-s.score, s.file, s.line))
    return tuple(Target(s.file, s.function, s.line, s.score) for s in ranked[:10])
