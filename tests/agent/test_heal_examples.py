"""Heal every bundled example end to end and check the proof, not just the status.

Each example under examples/ is copied into a fresh git repository, healed with the local
sandbox, and the patch is applied to a clean clone of the base commit whose full suite then
runs in a separate process.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, apply_and_test, diff_lines, git


@dataclass(frozen=True)
class Expected:
    changed_file: str
    function: str
    failing: frozenset[str]
    removed: tuple[str, ...]
    added: tuple[tuple[str, ...], ...]  # every correct minimal fix


EXPECTED = {
    "intervals": Expected(
        changed_file="intervals/core.py",
        function="merge",
        failing=frozenset(
            {
                "tests/test_merge.py::test_touching_intervals_merge",
                "tests/test_merge.py::test_total_length_counts_shared_points_once",
            }
        ),
        removed=("        if merged and current.start < merged[-1].end:",),
        # On integer bounds all three say "touching counts as overlapping".
        added=(
            ("        if merged and current.start <= merged[-1].end:",),
            ("        if merged and current.start - 1 < merged[-1].end:",),
            ("        if merged and current.start < merged[-1].end + 1:",),
        ),
    ),
    "pricing": Expected(
        changed_file="pricing/money.py",
        function="percent_change",
        failing=frozenset(
            {
                "tests/test_money.py::test_percent_change_of_a_price_rise_is_positive",
                "tests/test_money.py::test_percent_change_of_a_price_cut_is_negative",
                "tests/test_order.py::test_price_change_report_lists_rises_first",
            }
        ),
        removed=("    return round(float((old - new) / old * 100), 2)",),
        added=(("    return round(float((new - old) / old * 100), 2)",),),
    ),
    "textstats": Expected(
        changed_file="textstats/metrics.py",
        function="average_word_length",
        failing=frozenset(
            {
                "tests/test_metrics.py::test_average_word_length_of_text_without_words_is_zero",
                "tests/test_report.py::test_summary_of_empty_text",
            }
        ),
        removed=(),
        added=(("    if not found:", "        return 0.0"),),
    ),
}


def test_every_example_has_expectations():
    found = sorted(p.name for p in EXAMPLES.iterdir() if (p / "pyproject.toml").is_file())
    assert found == sorted(EXPECTED)


def patched_files(patch: str) -> set[str]:
    headers = (line for line in patch.splitlines() if line.startswith("diff --git "))
    return {line.split(" b/", 1)[1] for line in headers}


def example_repo(name: str, tmp_path: Path) -> Path:
    """A committed git repository holding a copy of examples/<name>, without caches."""
    repo = tmp_path / name
    shutil.copytree(
        EXAMPLES / name,
        repo,
        # .selfheal: a demo run's memory would be recalled and change the search's order
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".benchmarks", ".selfheal"),
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{name} example")
    return repo


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_heal_example(name, run_heal, tmp_path):
    expected = EXPECTED[name]
    repo = example_repo(name, tmp_path)
    base = git(repo, "rev-parse", "HEAD").strip()

    result = run_heal(repo)

    diagnostics = (
        f"status={result.status} error={result.error} notes={result.notes} "
        f"fixes={[f.description for f in result.fixes]}"
    )
    assert set(result.failures_before) == expected.failing, diagnostics
    assert result.status == "healed", diagnostics
    assert result.error is None
    assert result.base_sha == base
    assert result.regressions == []
    assert result.failures_after == []
    assert set(result.verdict.healed) == expected.failing
    assert result.verdict.violations == []

    # The patch touches the one buggy source file, never a test.
    assert patched_files(result.patch) == {expected.changed_file}
    assert set(result.changes) == {expected.changed_file}
    assert not any(path.startswith("tests/") for path in patched_files(result.patch))

    # The fix is the expected one, in the expected function.
    assert len(result.fixes) == 1
    assert result.fixes[0].file == expected.changed_file
    assert result.fixes[0].function.split(".")[-1] == expected.function
    removed, added = diff_lines(result.patch)
    assert tuple(removed) == expected.removed
    assert tuple(added) in expected.added

    # Proof: applies on the base commit, and the whole suite passes in a clean separate run.
    done = apply_and_test(repo, result.patch, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout

    # Healing worked on a copy: the repository itself is untouched.
    assert git(repo, "status", "--porcelain") == ""
