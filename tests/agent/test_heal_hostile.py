"""Whole heals of repositories whose tests attack selfheal's hold on the workspace.

A planted link where selfheal writes its proof of a new test ends as a test not proven, with the
reason in report.json, and the heal goes on to its verdict; tests that write past the sandbox's
disk limit end the heal with a report that names the limit. Neither is an internal error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from selfheal.agent.config import build_config, choose_sandbox_for
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.report.outputs import write_outputs
from tests.conftest import report_errors

CALC = {
    "calc.py": '''
        def add(a, b):
            """The sum of a and b."""
            return a - b
    ''',
    "tests/test_calc.py": """
        from calc import add

        def test_add():
            assert add(2, 3) == 5

        def test_add_zero():
            assert add(0, 0) == 0
    """,
}

# Where the heal will write the new tests for `add` (testproof.new_test_path): a link there,
# planted by the repository's own conftest every time its tests run.
PLANT_LINK = """
import os
here = os.path.dirname(os.path.abspath(__file__))
target = os.path.join(here, "tests", "test_selfheal_add.py")
if not os.path.islink(target):  # whatever selfheal wrote there becomes a link out of the workspace
    if os.path.lexists(target):
        os.remove(target)
    os.symlink({outside!r}, target)
"""

FILL_DISK = """
import os
os.makedirs("fill", exist_ok=True)
for i in range(64):
    with open(os.path.join("fill", "%d.bin" % i), "wb") as handle:
        handle.write(os.urandom(1024 * 1024))
"""


def heal_to_report(repo: Path, out: Path, **flags: object) -> tuple[object, dict]:
    flags.setdefault("python", sys.executable)
    config = build_config(repo, {**flags, "sandbox": "local"})
    sandbox, _ = choose_sandbox_for(config)
    trace = Trace()
    result = heal(config, sandbox, trace)
    report = write_outputs(result, trace, out)
    assert report_errors(report) == []
    return result, report


def test_a_link_planted_where_the_new_tests_go_fails_their_proof_and_the_heal_goes_on(
    make_repo, tmp_path: Path
) -> None:
    outside = tmp_path / "precious.py"
    outside.write_text("PRECIOUS = True\n", encoding="utf-8")
    repo = make_repo({**CALC, "conftest.py": PLANT_LINK.format(outside=str(outside))})
    result, report = heal_to_report(repo, tmp_path / "out")

    assert report["status"] == "healed", report.get("error")
    assert outside.read_text(encoding="utf-8") == "PRECIOUS = True\n"
    assert "-    return a - b" in report["patch"] and "+    return a + b" in report["patch"]
    # each proof run starts from a tree made afresh, so the link is always planted by the run
    # itself, over the file selfheal wrote: the proof sees no test of its own and ships nothing
    reasons = [t["reason"] for t in report["discarded_tests"]]
    assert reasons and all(r.startswith("does not run on the patched code") for r in reasons), reasons
    assert not result.test_files  # nothing unproven ships
    assert report["new_tests"] == []


def test_tests_that_write_past_the_disk_limit_end_the_heal_with_a_report_naming_it(
    make_repo, tmp_path: Path
) -> None:
    repo = make_repo({**CALC, "conftest.py": FILL_DISK})
    _, report = heal_to_report(repo, tmp_path / "out", disk_mb=20)

    assert report["status"] == "error"
    assert "disk limit of 20 MiB" in report["error"]
    assert report["sandbox"]["facts"]["disk_limit_mb"] == 20
    assert (tmp_path / "out" / "summary.md").is_file()


# The run's JUnit XML, which pytest writes at its end, replaced by a link once pytest is done.
REDIRECT_REPORT = """
import atexit, os, shlex
junit = next((a.split("=", 1)[1] for a in shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
              if a.startswith("--junitxml=")), None)

def swap():
    if junit:
        os.replace(junit, junit + ".moved")
        os.symlink("/etc/passwd", junit)

atexit.register(swap)
"""


def test_a_report_replaced_by_a_link_ends_the_heal_naming_the_tampering(make_repo, tmp_path: Path) -> None:
    repo = make_repo({**CALC, "conftest.py": REDIRECT_REPORT})
    _, report = heal_to_report(repo, tmp_path / "out")

    assert report["status"] == "error"
    assert "is a symbolic link (to /etc/passwd) after the run" in report["error"], report["error"]
    assert "the tests tampered with the results selfheal reads" in report["error"]
    assert "root:" not in json.dumps(report)
