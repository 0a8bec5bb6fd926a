"""Generated tests: rendering, where they go, and the proof run on the base and the patched code."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from selfheal.agent.newtests.cases import (
    FAIL_TO_PASS,
    GUARD,
    TestCase,
    TestFile,
    check_case_code,
    merge_imports,
)
from selfheal.agent.newtests.proof import TestProver, new_test_path
from selfheal.agent.run.freshtree import FreshTree
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.timelimits import TimeLimits
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.sandbox import LocalSandbox

BASE = "def area(width, height):\n    return width + height\n"
PATCHED = "def area(width, height):\n    return width * height\n"
REPO = {
    "shapes/__init__.py": "",
    "shapes/core.py": BASE,
    # a module of the project that keeps a journal beside the package whenever it is imported
    "shapes/journal.py": "from pathlib import Path\n\n"
    "Path(__file__).parents[1].joinpath('journal.txt').touch()\n",
    "tests/test_core.py": "from shapes.core import area\n\n\ndef test_square():\n"
    "    assert area(2, 2) == 4\n",
}
IMPORT = ("from shapes.core import area",)


def case(name: str, body: str, origin: str = "qa_adversarial", imports=IMPORT) -> TestCase:
    return TestCase(name, f"def {name}():\n    {body}\n", origin, reason="why", imports=imports)


@contextmanager
def prover_of(
    repo: Path, *, timeout: float = 60, test_timeout: float = 10
) -> Iterator[tuple[TestProver, Path]]:
    """A prover over `repo` in the real local sandbox; its runner takes `timeout` per run and
    `test_timeout` per test."""
    workspace = Workspace.create(Origin.inspect(repo))
    session = LocalSandbox().start(workspace.root)
    try:
        runner = TestRunner(
            session, TestCommand.parse("python -m pytest", sys.executable, workspace.root), sys.executable,
            timeout=timeout, test_timeout=test_timeout,
        )  # fmt: skip
        tree = FreshTree.for_workspace(session, sys.executable, workspace, runner.fingerprint())
        yield TestProver(runner, tree), workspace.root
    finally:
        session.close()
        workspace.cleanup()


@pytest.fixture
def prover(make_repo) -> Iterator[tuple[TestProver, Path]]:
    with prover_of(make_repo(REPO)) as made:
        yield made


def test_each_case_gets_its_proof_and_the_workspace_is_left_as_found(prover) -> None:
    proving, root = prover
    cases = (
        case("test_rectangle", "assert area(2, 3) == 6"),  # wrong on base, right on the patch
        case("test_zero_width", "assert area(0, 0) == 0"),  # right on both
        case("test_wrong_expectation", "assert area(2, 3) == 7"),  # wrong on both
        case("test_skips", "pytest.skip('later')"),  # unfit
        case("test_rectangle", "assert area(1, 1) == 1"),  # a second test of the same name
    )
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".selfheal" not in str(p)}
    proof = proving.prove(TestFile("tests/test_gen.py", cases), {"shapes/core.py": PATCHED})
    proven, discarded = proof.proven, proof.discarded

    kinds = {p.case.name: (p.kind, p.fails_on_base, p.passes_on_patch) for p in proven}
    assert kinds == {
        "test_rectangle": (FAIL_TO_PASS, True, True),
        "test_zero_width": (GUARD, False, True),
        "test_wrong_expectation": (None, True, False),
    }
    wrong = next(p for p in proven if p.case.name == "test_wrong_expectation")
    assert wrong.patch_message == "assert 6 == 7"
    assert [(c.name, why) for c, why in discarded] == [
        ("test_skips", "test_skips: skip/xfail is not allowed in a generated test"),
        ("test_rectangle", "test_rectangle: a second test with the same name"),
    ]
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".selfheal" not in str(p)}
    assert after == before  # no test file left, the source back to its base text


def test_a_file_the_patched_code_cannot_import_is_discarded_whole(prover) -> None:
    proving, _ = prover
    cases = (case("test_a", "assert area(1, 2) == 2", imports=("from shapes.core import volume",)),)
    proof = proving.prove(TestFile("tests/test_gen.py", cases), {"shapes/core.py": PATCHED})
    proven, discarded = proof.proven, proof.discarded
    assert proven == []
    [(dropped, why)] = discarded
    assert dropped.name == "test_a" and why.startswith("does not run on the patched code")


def test_the_rendered_file_reads_like_a_person_wrote_it() -> None:
    cases = (
        case("test_one", "assert area(1, 1) == 1", imports=("from shapes.core import area", "import pytest")),
        case("test_two", "assert area(2, 1) == 2", imports=("from shapes.core import perimeter",)),
    )
    text = TestFile("tests/test_gen.py", cases, header="Tests for area.").render({"test_one": "guard"})
    assert text == (
        '"""Tests for area."""\n'
        "import pytest\n"
        "from shapes.core import area, perimeter\n"
        "\n\n# guard\ndef test_one():\n    assert area(1, 1) == 1\n"
        "\n\ndef test_two():\n    assert area(2, 1) == 2\n"
    )
    assert merge_imports(["import os", "from a import b as c", "import os", "weird line"]) == [
        "import os", "from a import b as c", "weird line",
    ]  # fmt: skip


def test_unfit_code_is_named_with_the_reason() -> None:
    assert check_case_code(case("test_ok", "assert area(1, 1) == 1")) is None
    assert "not valid Python" in check_case_code(TestCase("test_x", "def test_x(:\n", "embedded"))
    two = TestCase("test_x", "def test_x():\n    pass\n\n\ndef test_y():\n    pass\n", "embedded")
    assert "exactly one" in check_case_code(two)
    other = TestCase("test_x", "def test_y():\n    pass\n", "embedded")
    assert "is named 'test_y'" in check_case_code(other)
    hiding = case("test_x", "try:\n        area(1, 1)\n    except Exception:\n        pass")
    assert "try/except" in check_case_code(hiding)
    assert "not an import line" in check_case_code(case("test_x", "pass", imports=("os.system('x')",)))
    with pytest.raises(ValueError, match="not a test function name"):
        TestCase("check_it", "def check_it():\n    pass\n", "embedded")


def test_the_test_file_goes_beside_the_failing_tests_with_a_free_name() -> None:
    nested = new_test_path("merge", ["tests/unit/test_m.py::test_a"], [])
    assert nested == "tests/unit/test_selfheal_merge.py"
    assert new_test_path("Cart.total", [], []) == "tests/test_selfheal_total.py"
    taken = ["tests/test_selfheal_merge.py", "tests/test_selfheal_merge_2.py"]
    assert new_test_path("merge", ["tests/test_m.py::t"], taken) == "tests/test_selfheal_merge_3.py"


def test_a_shipped_file_runs_green_with_plain_pytest(prover, tmp_path: Path) -> None:
    proving, root = prover
    cases = (case("test_rectangle", "assert area(2, 3) == 6"),)
    proven = proving.prove(TestFile("tests/test_gen.py", cases), {"shapes/core.py": PATCHED}).proven
    (root / "shapes" / "core.py").write_text(PATCHED)
    (root / "tests" / "test_gen.py").write_text(TestFile("tests/test_gen.py", cases).render())
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/test_gen.py"], cwd=root,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout
    assert [p.kind for p in proven] == [FAIL_TO_PASS]


@pytest.mark.parametrize(
    ("body", "imports", "said"),
    [
        ("socket.create_connection(('127.0.0.1', 80))", ("import socket",), "it imports socket"),
        ("assert area(1, 1) == 1, os.environ", ("import os",), "it uses os.environ"),
        ("assert os.getenv('GITHUB_TOKEN') is None", ("import os",), "it uses os.getenv"),
        ("time.sleep(10 ** 6)", ("import time",), "it uses time.sleep"),
        ("os.fork()", ("import os",), "it uses os.fork"),
        ("os.system('true')", ("import os",), "it uses os.system"),
        ("subprocess.run(['true'])", ("import subprocess",), "it imports subprocess"),
        ("__import__('socket')", (), "it uses __import__"),
        ("open('/etc/passwd').read()", (), "it opens '/etc/passwd', outside the project"),
        ("open('../../secret').read()", (), "outside the project"),
        ("open('pkg/core.py', 'w').write('')", (), "it opens a file for writing outside tmp_path"),
        (
            "pathlib.Path('pkg/core.py').write_text('')",
            ("import pathlib",),
            ".write_text() on a path outside",
        ),
        ("assert area(1, 1) == 1", ("from http import client",), "it imports http"),
    ],
)
def test_a_generated_test_that_reaches_past_the_code_is_refused_before_it_runs(body, imports, said) -> None:
    problem = check_case_code(case("test_hostile", body, imports=(*IMPORT, *imports)))
    assert problem is not None and said in problem
    assert "A generated test may only call the code under test" in problem
    assert "test the function's result instead" in problem


def test_ordinary_generated_tests_still_pass_the_check() -> None:
    def check(body: str, *imports: str) -> str | None:
        return check_case_code(case("test_fine", body, imports=(*IMPORT, *imports)))

    assert check("assert area(2, 3) == 6") is None
    assert check("assert 'a b'.replace(' ', '') == 'ab'") is None
    assert check("assert math.isclose(area(0.1, 3), 0.3)", "import math") is None
    with_tmp = TestCase(
        "test_fine", "def test_fine(tmp_path):\n    (tmp_path / 'x').write_text('1')\n"
        "    assert open(tmp_path / 'x', 'w')\n", "qa_adversarial", imports=IMPORT,
    )  # fmt: skip
    assert check_case_code(with_tmp) is None
    assert check("assert open('data.txt').read() == ''") is None  # reads inside the project: contained


WRITER = (
    PATCHED
    + "\nimport os\nopen(os.path.join(os.path.dirname(__file__), '..', 'planted.txt'), 'w').write('x')\n"
)


def test_a_file_the_patched_code_writes_in_the_proof_run_refuses_the_patch(prover) -> None:
    proving, root = prover
    cases = (case("test_rectangle", "assert area(2, 3) == 6"),)
    proof = proving.prove(TestFile("tests/test_gen.py", cases), {"shapes/core.py": WRITER})
    assert proof.patch_wrote == ("planted.txt (created)",)
    assert proof.proven == []
    assert [why for _, why in proof.discarded] == [
        "not proven: the patched code changed files outside the patch: planted.txt (created)"
    ]
    assert not (root / "planted.txt").exists() and (root / "shapes" / "core.py").read_text() == BASE


def test_a_test_whose_run_writes_a_file_on_both_codes_is_discarded_and_the_patch_stands(prover) -> None:
    proving, root = prover
    journal = case("test_journal", "assert area(2, 3) == 6", imports=(*IMPORT, "import shapes.journal"))
    proof = proving.prove(TestFile("tests/test_gen.py", (journal,)), {"shapes/core.py": PATCHED})
    assert proof.patch_wrote == () and proof.proven == []
    assert [why for _, why in proof.discarded] == [
        "not proven: its run changed files outside the test: journal.txt (created)"
    ]
    assert not (root / "journal.txt").exists()


def test_what_an_earlier_run_planted_is_not_there_in_the_proof_runs(prover) -> None:
    """A conftest.py that turns every failure into a pass, left by an earlier run: without it the
    new test fails on the base code, as it does."""
    proving, root = prover
    (root / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    report = outcome.get_result()\n    if report.failed:\n"
        "        report.outcome = 'passed'\n"
    )
    proof = proving.prove(TestFile("tests/test_gen.py", (case("test_rectangle", "assert area(2, 3) == 6"),)),
                          {"shapes/core.py": PATCHED})  # fmt: skip
    assert [(p.case.name, p.kind) for p in proof.proven] == [("test_rectangle", FAIL_TO_PASS)]
    assert proof.patch_wrote == () and not (root / "tests" / "conftest.py").exists()


# loops forever for a width of 2; is slow (about 4 s) but right for a width of 3, before and after
SLOW = "    if width == 3:\n        sum(range(240_000_000))\n    return width * height\n"
LOOPS_ON_TWO = "def area(width, height):\n    while width == 2:\n        pass\n" + SLOW
NO_LOOP = "def area(width, height):\n" + SLOW


def test_where_the_bug_is_a_hang_a_case_cut_short_on_the_base_is_claimed_only_when_the_cut_proves_it(
    make_repo,
) -> None:
    """Tests already hung at baseline, so the base's run gives each new case the sibling probe (a
    second or two): the looping case is cut and proven; a case that is merely slow is cut too, but
    the patch takes as long, so it is run again alone under the probe and is a guard, never a
    fail-before it did not have."""
    repo = make_repo({**REPO, "shapes/core.py": LOOPS_ON_TWO})
    with prover_of(repo, timeout=120, test_timeout=30) as (proving, _):
        proving.runner.limits = TimeLimits(
            {}, frozenset({"tests/test_core.py::test_square"}), ceiling=30.0, probe=12.0
        )
        cases = (
            case("test_two_wide", "assert area(2, 3) == 6"),
            case("test_slow_but_right", "assert area(3, 1) == 3"),
        )
        proof = proving.prove(TestFile("tests/test_gen.py", cases), {"shapes/core.py": NO_LOOP})
    kinds = {p.case.name: (p.kind, p.fails_on_base) for p in proof.proven}
    assert kinds == {"test_two_wide": (FAIL_TO_PASS, True), "test_slow_but_right": (GUARD, False)}, [
        (c.name, why) for c, why in proof.discarded
    ]
    two_wide = next(p for p in proof.proven if p.case.name == "test_two_wide")
    assert "selfheal per-test timeout" in two_wide.base_message
