"""Engine behaviour on real repos: plugins and conftest, flakes, pairs, budgets, determinism."""

from __future__ import annotations

import pytest

from selfheal.agent.localize.spectrum import localize
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.repair.strategy import RepairContext
from tests.conftest import apply_and_test, git


@pytest.mark.slow
def test_src_layout_with_conftest_fixture_plugin_and_ini_options(make_repo, run_heal, tmp_path):
    repo = make_repo(
        {
            "pyproject.toml": """
            [tool.pytest.ini_options]
            pythonpath = ["src"]
            addopts = "-p tests.shoutplugin"
            markers = ["money: needs the money fixture"]
            """,
            "src/ledger/__init__.py": "",
            "src/ledger/book.py": '''
            def balance(entries):
                """Sum of credits minus debits."""
                total = 0
                for kind, amount in entries:
                    if kind == "credit":
                        total += amount
                    else:
                        total += amount
                return total
            ''',
            "tests/__init__.py": "",
            "tests/shoutplugin.py": """
            import pytest

            @pytest.fixture
            def shout():
                return str.upper
            """,
            "tests/conftest.py": """
            import pytest

            @pytest.fixture
            def entries():
                return [("credit", 10), ("debit", 3), ("credit", 5)]
            """,
            "tests/test_book.py": """
            import pytest
            from ledger.book import balance

            @pytest.mark.money
            def test_balance(entries):
                assert balance(entries) == 12

            def test_empty():
                assert balance([]) == 0

            def test_credits_only():
                assert balance([("credit", 2), ("credit", 3)]) == 5

            def test_plugin_fixture(shout):
                assert shout("ok") == "OK"
            """,
        }
    )
    result = run_heal(repo)
    assert result.status == "healed", (result.error, result.notes)
    assert result.metrics.screener == "fork-worker"
    assert "-            total += amount\n+            total -= amount" in result.patch
    assert apply_and_test(repo, result.patch, tmp_path).returncode == 0


@pytest.mark.slow
def test_flaky_failures_are_reported_and_not_healed(make_repo, run_heal):
    repo = make_repo(
        {
            "calc.py": "def inc(x):\n    return x + 2\n",
            "test_calc.py": """
            import os
            from pathlib import Path

            from calc import inc

            def test_inc():
                assert inc(1) == 2

            def test_flaky():
                marker = Path(os.environ["HOME"]) / "seen-once"
                if not marker.exists():
                    marker.write_text("x")
                    raise AssertionError("fails the first time only")
            """,
        }
    )
    result = run_heal(repo)
    assert result.flaky == ("test_calc.py::test_flaky",)
    assert result.status == "healed"
    assert result.verdict.healed == ("test_calc.py::test_inc",)
    assert "+    return x + 1" in result.patch
    assert any(
        "test_calc.py::test_flaky" in lesson and "flaky" in lesson
        for lesson in __import__("selfheal.agent.report.lessons", fromlist=["x"]).build_lessons(result)
    )


@pytest.mark.slow
def test_a_bug_that_needs_two_edits_is_healed_by_a_pair(make_repo, run_heal, tmp_path):
    repo = make_repo(
        {
            "span.py": '''
            def inclusive(lo, hi):
                """All integers from lo to hi, both included."""
                return list(range(lo + 1, hi))
            ''',
            "test_span.py": """
            from span import inclusive

            def test_inclusive():
                assert inclusive(1, 3) == [1, 2, 3]

            def test_single():
                assert inclusive(4, 4) == [4]
            """,
        }
    )
    result = run_heal(repo)
    assert result.status == "healed"
    assert len(result.fixes) == 1 and len(result.fixes[0].parts) == 2
    assert "+    return list(range(lo, hi + 1))" in result.patch
    assert apply_and_test(repo, result.patch, tmp_path).returncode == 0


@pytest.mark.slow
def test_the_candidate_budget_ends_the_search_cleanly(make_repo, run_heal):
    repo = make_repo(
        {
            "greet.py": (
                "def greet(name, times=1, loud=False):\n"
                "    text = 'hello ' * times\n"
                "    if loud and times > 0:\n"
                "        text = text.upper()\n"
                "    return text[: len(text) - 1]\n"
            ),
            "test_greet.py": "from greet import greet\n\ndef test_greet():\n"
            "    assert greet('Ann') == 'Hello, Ann!'\n",
        }
    )
    result = run_heal(repo, max_candidates=5)
    assert result.status == "not_healed"
    assert result.metrics.candidates_tried == 5
    assert result.stopped_because == "candidate budget of 5 spent"
    assert result.patch == ""
    assert result.failures_after == ["test_greet.py::test_greet"]


@pytest.mark.slow
def test_a_test_the_worker_disagrees_on_is_screened_in_a_fresh_process(make_repo, run_heal):
    repo = make_repo(
        {
            "calc.py": "def inc(x):\n    return x + 2\n",
            "test_calc.py": """
            import sys
            from calc import inc

            def test_inc():
                assert inc(1) == 2

            def test_grows_when_run_by_pytest():
                # inspects how it was started: true under pytest, false in the screening worker
                assert inc(5) > 5 and "pytest" in " ".join(sys.argv)
            """,
        }
    )
    result = run_heal(repo)
    # the worker keeps screening test_inc; the test it disagrees on runs in a fresh pytest process
    assert result.metrics.screener == "fork-worker+ordered"
    assert any("depend on what earlier tests leave behind" in note for note in result.notes)
    assert result.status == "healed"


def one_file_context(source: str, coverage, seed: int) -> RepairContext:
    """The search's context for one file `m.py`, localized from failing t::a and passing t::b."""
    found = localize(
        failing=["t::a"],
        passing=["t::b"],
        outcomes={},
        coverage=coverage,
        sources={"m.py": source},
        root="/ws",
    )
    return RepairContext({"m.py": source}, found, ("t::a",), ("t::b",), coverage, {}, Hints(), seed)


def test_candidate_order_is_deterministic_for_a_seed():
    source = (
        "def clip(values, low, high):\n"
        "    out = []\n"
        "    for v in values:\n"
        "        if v < low or v > high:\n"
        "            continue\n"
        "        out.append(v)\n"
        "    return out\n"
    )
    from selfheal.agent.run.testrun import CoverageMap

    coverage = CoverageMap(
        {"t::a": {"m.py": frozenset(range(1, 8))}, "t::b": {"m.py": frozenset({1, 2, 3, 4, 6, 7})}}
    )

    def order(seed: int) -> list[str]:
        return [c.description for c in SearchStrategy().candidates(one_file_context(source, coverage, seed))]

    assert order(7) == order(7)
    assert order(7) != order(8)
    assert sorted(order(7)) == sorted(order(8))


def test_module_constants_read_by_a_suspicious_line_are_mutated_too():
    """Coverage never blames `LIMIT = 3` (it runs at import, before any test); the line that
    reads it is blamed, and the constant's candidates rank below that line's own."""
    source = "import math\n\nLIMIT = 3\n\n\ndef capped(values):\n    return [min(v, LIMIT) for v in values]\n"
    from selfheal.agent.run.testrun import CoverageMap

    coverage = CoverageMap({"t::a": {"m.py": frozenset({7})}, "t::b": {"m.py": frozenset()}})
    context = one_file_context(source, coverage, seed=1)
    found = context.localization
    assert [(s.file, s.line) for s in found.lines] == [("m.py", 7)]
    candidates = SearchStrategy().candidates(context)
    constant = [c for c in candidates if c.line == 3]
    assert sorted(c.description for c in constant) == [
        "m.py:3: constant 3 -> 2",
        "m.py:3: constant 3 -> 4",
        "m.py:3: delete line 3 `LIMIT = 3`",
    ]
    assert {c.function for c in constant} == {"<module>"}
    # half the reading line's suspiciousness, times the operator's prior (off-by-one: 0.85)
    plus_one = next(c for c in constant if c.description.endswith("3 -> 4"))
    assert plus_one.score == pytest.approx(found.lines[0].score * 0.5 * 0.85)


def test_an_edit_no_test_executed_is_screened_with_every_test_of_its_file():
    """`SCALE = {...}` runs at import, so no test covers it: screening a change there with only
    its (no) covering tests would call any candidate that fixes the target plausible."""
    from selfheal.agent.rounds import covering_for_lines
    from selfheal.agent.run.junit import TestOutcome
    from selfheal.agent.run.testrun import CoverageMap, TestReport

    coverage = CoverageMap({
        "t::cm": {"units.py": frozenset({5})},
        "t::km": {"units.py": frozenset({5})},
        "t::other": {"other.py": frozenset({1})},
        "t::failing_too": {"units.py": frozenset({5})},
    })  # fmt: skip
    outcomes = {"t::cm": "failed", "t::km": "passed", "t::other": "passed", "t::failing_too": "failed"}
    baseline = TestReport("ok", 1, {n: TestOutcome(n, o) for n, o in outcomes.items()}, 0.1)
    assert covering_for_lines([("units.py", 1)], coverage, baseline) == ["t::km"]
    assert covering_for_lines([("units.py", 5)], coverage, baseline) == ["t::km"]
    assert covering_for_lines([("other.py", 1)], coverage, baseline) == ["t::other"]
    assert covering_for_lines([("other.py", 9), ("units.py", 1)], coverage, baseline) == [
        "t::km",
        "t::other",
    ]


@pytest.mark.slow
def test_the_repos_own_venv_is_the_default_interpreter(make_repo, run_heal):
    import subprocess
    import sys
    import sysconfig

    repo = make_repo(
        {
            "calc.py": "def inc(x):\n    return x + 2\n",
            "test_calc.py": "from calc import inc\n\ndef test_inc():\n    assert inc(1) == 2\n",
        }
    )
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    site = next((repo / ".venv" / "lib").glob("python3*/site-packages"))
    # the repo's environment gets pytest the way an installed dependency would be found
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    result = run_heal(repo, python=None)
    assert result.python == str(repo / ".venv" / "bin" / "python")
    assert result.status == "healed"
    assert ".venv" not in result.patch


@pytest.mark.slow
def test_a_command_that_runs_pytest_from_a_subfolder(make_repo, run_heal):
    repo = make_repo(
        {
            "shapes/__init__.py": "",
            "shapes/rect.py": "def perimeter(w, h):\n    return 2 * (w + w)\n",
            "tests/test_rect.py": """
            import unittest
            from shapes.rect import perimeter

            class RectTests(unittest.TestCase):
                def test_square(self):
                    self.assertEqual(perimeter(2, 2), 8)

                def test_oblong(self):
                    self.assertEqual(perimeter(3, 4), 14)
            """,
        }
    )
    # pytest's rootdir is tests/ here, so its own node ids lack the folder; selfheal's ids
    # are relative to the repo and work for targeted runs from the top.
    result = run_heal(repo, test_command="cd tests && python -m pytest -q .")
    assert result.failures_before == ["tests/test_rect.py::RectTests::test_oblong"]
    assert result.status == "healed"
    assert result.metrics.screener == "fork-worker"
    assert "+    return 2 * (w + h)" in result.patch


def test_a_venv_committed_with_the_code_is_not_the_interpreter(make_repo):
    """A committed .venv is the repository's choice of what runs its tests and what the sandbox
    shows them; only the user's own, untracked .venv is used."""
    import subprocess
    import sys

    from selfheal.agent.run.interpreter import resolve_python

    repo = make_repo({"calc.py": "X = 1\n"})
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    assert resolve_python(None, repo) == str(repo / ".venv" / "bin" / "python")
    git(repo, "add", "-f", ".venv/pyvenv.cfg")
    git(repo, "commit", "-q", "-m", "a committed venv")
    assert resolve_python(None, repo) == sys.executable
