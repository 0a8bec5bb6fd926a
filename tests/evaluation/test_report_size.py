"""evaluation/report_size.py: its repository's bug is out of the search's reach, so the search
screens until its budget is spent; the figure itself (>= 1,500 candidates) comes from running the
script, which takes minutes."""

from __future__ import annotations

from evaluation.report_size import measure


def test_the_ledger_heal_spends_its_whole_candidate_budget_and_its_sizes_are_measured(tmp_path):
    figures = measure(tmp_path, max_candidates=60, max_minutes=5)
    assert figures.failures_before == (
        "tests/test_ledger.py::test_statement_leaves_transfers_out_of_income_and_spending",
    )
    assert (figures.status, figures.exit_code) == ("not_healed", 1)
    assert figures.candidates_screened == figures.screen_events == 60
    assert set(figures.sizes) == {"report.html", "report.json", "trace.jsonl"}
    assert all(size > 1000 for size in figures.sizes.values())
