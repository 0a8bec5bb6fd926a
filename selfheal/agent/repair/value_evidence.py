"""What the failing tests' assertion messages say about the values: the actual and the expected.

Pytest reports a failed `assert f(x) == 15` as `assert 12 == 15`; both sides are reprs. Each
such pair, and the numbers the failing tests pass in, tell expression synthesis which of its
candidates fit the failure: an expected value off by one, off by a number the test used, at a
bound the actual value ran past, a neutral value where another came out, or a collection with
items missing or left over.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from selfheal.agent.repair.strategy import RepairContext

MAX_NUMBERS = 40
ASSERTION = re.compile(r"^(?:AssertionError:\s*)?assert (?P<body>.+)$", re.MULTILINE)


@dataclass(frozen=True)
class ValueEvidence:
    mismatches: tuple[tuple[object, object], ...] = ()  # (actual, expected) as the asserts print them
    numbers: tuple[float, ...] = ()  # numeric constants of the failing tests

    @classmethod
    def of(cls, context: RepairContext) -> ValueEvidence:
        mismatches = []
        for test in context.targets:
            pair = assertion_values(context.baseline_messages.get(test, ""))
            if pair is not None and pair not in mismatches:
                mismatches.append(pair)
        return cls(tuple(mismatches), failing_numbers(context.target_tests))

    def _numeric(self) -> list[tuple[float, float]]:
        return [(a, e) for a, e in self.mismatches if _is_number(a) and _is_number(e)]

    @property
    def off_by_one(self) -> bool:
        return any(abs(e - a) == 1 for a, e in self._numeric())

    @property
    def off_by_input(self) -> bool:
        """The expected value is the actual one plus or minus a number the test passed in."""
        return any(abs(e - a) in self.numbers and abs(e - a) != 1 for a, e in self._numeric())

    @property
    def at_a_bound(self) -> bool:
        """The expected value is a number of the test (or zero) and the actual ran past it."""
        return any(e != a and (e in self.numbers or e == 0) for a, e in self._numeric())

    @property
    def neutral(self) -> bool:
        """One side is a neutral value (0, 1, "", None, an empty collection)."""
        return any(_neutral(a) or _neutral(e) for a, e in self.mismatches)

    @property
    def items_missing(self) -> bool:
        """A collection came out with a different number of items than expected."""
        return any(
            isinstance(a, (list, set, dict, tuple)) and isinstance(e, type(a)) and len(a) != len(e)
            for a, e in self.mismatches
        )


def assertion_values(message: str) -> tuple[object, object] | None:
    """(actual, expected) of the message's first `assert x == y` whose sides are both literals.

    Each ` == ` is tried in turn, so a side that itself contains one (`'a == b'`) still splits
    right; a side pytest shortened (`[1, 2...', ...]`) is not a literal and gives None.
    """
    for match in ASSERTION.finditer(message or ""):
        body = match.group("body").strip()
        start = 0
        while (at := body.find(" == ", start)) != -1:
            start = at + 1
            try:
                return ast.literal_eval(body[:at]), ast.literal_eval(body[at + 4 :])
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
    return None


def failing_numbers(target_tests: dict[str, str]) -> tuple[float, ...]:
    """Numeric constants of the failing tests' files, in source order."""
    found: list[float] = []
    for text in target_tests.values():
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        constants = sorted(
            (n for n in ast.walk(tree) if isinstance(n, ast.Constant) and _is_number(n.value)),
            key=lambda n: (n.lineno, n.col_offset),
        )
        for node in constants:
            if node.value not in found:
                found.append(node.value)
    return tuple(found[:MAX_NUMBERS])


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _neutral(value: object) -> bool:
    if isinstance(value, (list, set, dict, tuple, str)):
        return len(value) == 0
    return value is None or (_is_number(value) and value in (0, 1))
