"""A task copy's pytest run read into outcomes by node id, with a real pytest."""

from __future__ import annotations

import textwrap

from evaluation.realbugs.pytest_run import parse_outcomes, run_pytest

SUBTESTS = """
import unittest


class Ranges(unittest.TestCase):
    def test_each_width(self):
        for width in range(3):
            with self.subTest(width=width, note="a b"):
                self.assertLess(width, 2)

    def test_plain(self):
        self.assertEqual(1 + 1, 2)
"""


def test_a_unittest_test_whose_subtest_failed_counts_as_failed(tmp_path):
    (tmp_path / "test_widths.py").write_text(textwrap.dedent(SUBTESTS), encoding="utf-8")
    run = run_pytest(tmp_path, ["test_widths.py"])
    assert run.returncode == 1
    assert run.outcomes == {
        "test_widths.py::Ranges::test_each_width": "FAILED",
        "test_widths.py::Ranges::test_plain": "PASSED",
    }
    assert run.failed() == {"test_widths.py::Ranges::test_each_width"}


def test_a_subtest_line_marks_only_the_test_it_names():
    output = "\n".join([
        "PASSED t.py::T::test_a",
        "PASSED t.py::T::test_ab",
        "PASSED t.py::T::test_b[x]",
        "SUBFAILED[first, second] (n=2) t.py::T::test_a - AssertionError: 2 not less than 2",
    ])  # fmt: skip
    assert parse_outcomes(output) == {
        "t.py::T::test_a": "FAILED", "t.py::T::test_ab": "PASSED", "t.py::T::test_b[x]": "PASSED",
    }  # fmt: skip


# a suite that tests undecodable file names writes bytes that are no UTF-8 to its output
SUITE = """
import sys


def test_writes_a_raw_byte():
    sys.stdout.buffer.write(b"name: \\xff\\n")
    sys.stdout.flush()
    assert False


def test_plain():
    assert True
"""


def test_a_run_whose_output_is_no_utf8_is_still_read(tmp_path):
    (tmp_path / "test_bytes.py").write_text(SUITE, encoding="utf-8")
    run = run_pytest(tmp_path, ["-s", "test_bytes.py"])  # uncaptured, the byte reaches the pipe as is
    assert run.returncode == 1
    assert run.outcomes == {
        "test_bytes.py::test_writes_a_raw_byte": "FAILED",
        "test_bytes.py::test_plain": "PASSED",
    }
    assert "name: \ufffd" in run.output
