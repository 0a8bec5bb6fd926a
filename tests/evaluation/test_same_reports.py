"""evaluation/same_reports.py: what a behaviour-keeping change may and may not change in report.json."""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.same_reports import main
from tests.conftest import hand_made_reports

REPORT = {
    "status": "healed",
    "base_sha": "a" * 40,
    "sandbox": {"isolation": "uid 58998, not selfheal's user", "facts": {"uid": 58998}},
    "metrics": {"wall_s": 8.7, "screen_s": 1.2, "candidates_tried": 42},
    "fixes": [{"line": 33, "family": "comparison-operator"}],
}


def write(folder: Path, report: dict) -> Path:
    folder.mkdir(parents=True)
    (folder / "report.json").write_text(json.dumps(report))
    return folder


def test_times_uids_and_the_commit_may_differ(tmp_path, capsys):
    root = hand_made_reports(tmp_path / "reports")  # partial reports by hand: not a heal's
    rerun = {
        **REPORT,
        "base_sha": "b" * 40,
        "sandbox": {"isolation": "uid 51234, not selfheal's user", "facts": {"uid": 51234}},
        "metrics": {"wall_s": 9.1, "screen_s": 1.4, "candidates_tried": 42},
    }
    write(root / "before" / "intervals", REPORT)
    write(root / "after" / "intervals", rerun)
    assert main([str(root / "before"), str(root / "after")]) == 0
    assert capsys.readouterr().out == "intervals: same\n"


def test_any_other_field_is_a_difference(tmp_path, capsys):
    root = hand_made_reports(tmp_path / "reports")
    changed = {**REPORT, "metrics": {**REPORT["metrics"], "candidates_tried": 41}, "fixes": [{"line": 34}]}
    before = write(root / "before", REPORT)
    after = write(root / "after", changed)
    assert main([str(before), str(after)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "before: 3 difference(s)",
        "  .fixes[0].family: only in before",
        "  .fixes[0].line: 33 -> 34",
        "  .metrics.candidates_tried: 42 -> 41",
    ]
