"""What the failing tests tell the directed families: where they crashed and which inputs they used.

`FailureEvidence.of(context)` gathers it once per search: the crash sites of the localization
(exception type and message at a project line) and the string constants of the failing test
functions (their inputs and expected outputs, with the parametrize values of their decorators and
the module constants they read), which guide the regex and string-literal edits, the
conversions their failing assertions ask for (`conversion_templates`), and the exception classes
the failing tests name or said were not raised, which aim the `except` clause edits
(`handler_templates`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.conversion_templates import conversions_asked
from selfheal.agent.repair.handler_templates import exception_names
from selfheal.agent.repair.strategy import RepairContext

MAX_INPUTS = 60
MAX_INPUT_LENGTH = 400


@dataclass(frozen=True)
class FailureEvidence:
    crashes: tuple[Crash, ...] = ()
    inputs: tuple[str, ...] = ()  # string constants of the failing tests, first seen first
    conversions: tuple[str, ...] = ()  # what turns a failing assertion's value into the expected one
    named_exceptions: tuple[str, ...] = ()  # exception classes the failing tests expect or name

    @classmethod
    def of(cls, context: RepairContext) -> FailureEvidence:
        messages = {t: context.baseline_messages.get(t, "") for t in context.targets}
        return cls(
            context.localization.crashes,
            failing_inputs(context.target_tests),
            conversions_asked(messages),
            failing_exception_names(context.target_tests, context.hints.expected_exceptions),
        )

    def crashes_at(self, path: str, statement: ast.stmt) -> list[Crash]:
        return [c for c in self.crashes if _within(statement, path, c.file, c.line)]

    def crashes_through(self, path: str, statement: ast.stmt) -> list[Crash]:
        """The crashes whose traceback passes a line of the statement: raised there, or in what
        it called."""
        return [
            c
            for c in self.crashes
            if any(_within(statement, path, file, line) for file, line in c.through or ((c.file, c.line),))
        ]


def _within(statement: ast.stmt, path: str, file: str, line: int) -> bool:
    return file == path and statement.lineno <= line <= (statement.end_lineno or statement.lineno)


# A failing test file is read for each of its failing tests, by the inputs and by the exception
# names alike: parsed once.
_parsed = lru_cache(maxsize=16)(ast.parse)


def failing_inputs(target_tests: dict[str, str]) -> tuple[str, ...]:
    """String constants of each failing test function (by its node id) and what it reads."""
    found: list[str] = []
    for nodeid, text in target_tests.items():
        try:
            tree = _parsed(text)
        except SyntaxError:
            continue
        function = _test_function(tree, nodeid)
        roots: list[ast.AST] = [function] if function is not None else [tree]
        if function is not None:
            read = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
            roots += [
                node
                for node in tree.body
                if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id in read for t in node.targets)
            ]
        for root in roots:
            for node in ast.walk(root):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and 0 < len(node.value) <= MAX_INPUT_LENGTH
                    and node.value not in found
                ):
                    found.append(node.value)
    return tuple(found[:MAX_INPUTS])


def failing_exception_names(target_tests: dict[str, str], not_raised: tuple[str, ...]) -> tuple[str, ...]:
    """The exceptions a failing test said were not raised, then those each failing test function
    names, first seen first."""
    found = list(not_raised)
    for nodeid, text in target_tests.items():
        try:
            function = _test_function(_parsed(text), nodeid)
        except SyntaxError:
            continue
        if function is not None:
            found += [name for name in exception_names(function) if name not in found]
    return tuple(found)


def _test_function(tree: ast.Module, nodeid: str) -> ast.AST | None:
    parts = [re.sub(r"\[.*\]$", "", p) for p in nodeid.split("::")[1:]]
    scope: list[ast.stmt] = tree.body
    found: ast.AST | None = None
    for part in parts:
        found = next(
            (
                n
                for n in scope
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part
            ),
            None,
        )
        if found is None:
            return None
        scope = found.body
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
