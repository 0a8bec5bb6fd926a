"""What a repair round reads from the baseline before it searches."""

from __future__ import annotations

import sys

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.rounds import expected_exceptions
from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.testrun import TestReport
from selfheal.sandbox import LocalSandbox


def report(**messages: str) -> TestReport:
    outcomes = {name: TestOutcome(name, "failed", message) for name, message in messages.items()}
    return TestReport("ok", 1, outcomes, 1.0)


def test_the_exception_a_failing_test_expected_is_read_from_pytest_and_from_unittest() -> None:
    baseline = report(
        a="Failed: DID NOT RAISE <class 'pkg.errors.SizeError'>",
        b="AssertionError: ValueError not raised by chunks",  # self.assertRaises(ValueError, chunks, 0, x)
        c="AssertionError: KeyError not raised",  # with self.assertRaises(KeyError): ...
        d="AssertionError: assert 'ValueError not raised' == 'x'",  # a comparison that mentions it
        e="AssertionError: ValueError not raised by chunks",
    )
    assert expected_exceptions(baseline, ["a", "b", "c", "d", "e", "missing"]) == (
        "SizeError",
        "ValueError",
        "KeyError",
    )
    assert expected_exceptions(baseline, ["d"]) == ()


CHUNKS = '''\
def chunks(size, items):
    """`items` in lists of `size` items; a size below one is refused with ValueError."""
    out = []
    for start in range(0, len(items), max(size, 1)):
        out.append(list(items[start : start + size]))
    return out
'''
UNITTEST_TESTS = """\
import unittest

from pkg.chunks import chunks


class ChunksTest(unittest.TestCase):
    def test_lists_of_the_size(self):
        self.assertEqual(chunks(2, [1, 2, 3]), [[1, 2], [3]])

    def test_a_size_below_one_is_refused(self):
        self.assertRaises(ValueError, chunks, 0, [1, 2, 3])

    def test_a_negative_size_is_refused(self):
        with self.assertRaises(ValueError):
            chunks(-2, [1, 2, 3])
"""


def test_a_unittest_assert_raises_that_failed_brings_guards_that_raise_it(make_repo) -> None:
    repo = make_repo({"pkg/__init__.py": "", "pkg/chunks.py": CHUNKS, "tests/test_chunks.py": UNITTEST_TESTS})
    trace = Trace()
    result = heal(build_config(repo, {"python": sys.executable, "memory": "off"}), LocalSandbox(), trace)

    assert result.status == "healed", result.error
    plausible = [e.data["candidate"] for e in trace.events if e.node == "screen" and e.data.get("plausible")]
    assert "pkg/chunks.py:4: guard `if size <= 0: raise ValueError` before line 4" in plausible
