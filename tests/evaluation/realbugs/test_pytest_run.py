"""One pytest run of a task copy, read back by node id."""

from __future__ import annotations

from evaluation.realbugs.pytest_run import run_pytest

# a suite that tests undecodable file names writes bytes that are no UTF-8 to its output
SUITE = '''
import sys


def test_writes_a_raw_byte():
    sys.stdout.buffer.write(b"name: \\xff\\n")
    sys.stdout.flush()
    assert False


def test_plain():
    assert True
'''


def test_a_run_whose_output_is_no_utf8_is_still_read(tmp_path):
    (tmp_path / "test_bytes.py").write_text(SUITE, encoding="utf-8")
    run = run_pytest(tmp_path, ["-s", "test_bytes.py"])  # uncaptured, the byte reaches the pipe as is
    assert run.returncode == 1
    assert run.outcomes == {
        "test_bytes.py::test_writes_a_raw_byte": "FAILED",
        "test_bytes.py::test_plain": "PASSED",
    }
    assert "name: \ufffd" in run.output
