"""The hostile-events corpus as data: what evaluation.hostile_events reads, and the figures it prints."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from evaluation.hostile_events.cases import DECISIONS, FAMILIES, CaseError, load_cases
from evaluation.hostile_events.figures import load_results, render, save_result


def test_the_corpus_has_at_least_30_cases_in_every_family_and_decision() -> None:
    cases = load_cases()
    assert len(cases) >= 30
    assert set(Counter(c.family for c in cases)) == set(FAMILIES)
    assert set(Counter(c.expect for c in cases)) == set(DECISIONS)
    assert [c.family for c in cases] == sorted((c.family for c in cases), key=FAMILIES.index)


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "family.py").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('FAMILY = "forks"\nCASES = [{"id": "a", "expect": "heal", "colour": 1}]', "unknown keys ['colour']"),
        ('FAMILY = "forks"\nCASES = [{"id": "a", "expect": "obey"}]', "a: expect, event or family"),
        (
            'FAMILY = "forks"\nCASES = [{"id": "a", "expect": "heal"}, {"id": "a", "expect": "heal"}]',
            "duplicate case",
        ),
        (
            'FAMILY = "forks"\nCASES = [{"id": "a", "expect": "heal", "branch": f"x"}]',
            "CASES must be a literal",
        ),
        ("CASES = []", "no FAMILY"),
    ],
)
def test_a_case_file_is_read_without_running_it_and_checked(tmp_path: Path, text: str, error: str) -> None:
    with pytest.raises(CaseError, match=error.replace("[", r"\[").replace("]", r"\]")):
        load_cases(_write(tmp_path / "cases", text))


def test_figures_per_family_and_runner(tmp_path: Path) -> None:
    base = {"family": "forks", "expected": "refuse", "problems": [], "duration_s": 1.5, "crashed": False}
    refused = {**base, "case": "a", "runner": "action", "decision": "refuse", "status": "refused"}
    healed = {**base, "case": "a", "runner": "bot", "decision": "heal", "status": "healed"}
    save_result(tmp_path, {**refused, "correct": True})
    save_result(
        tmp_path, {**healed, "correct": False, "problems": ["decision heal (healed), expected refuse"]}
    )
    text = render(load_results(tmp_path))
    assert "forks   1      1 / 1 / 0, 2s  1 / 0 / 0, 2s" in text
    assert "a [bot] heal (healed):\n    decision heal (healed), expected refuse" in text
