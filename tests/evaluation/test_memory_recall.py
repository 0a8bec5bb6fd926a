"""Acceptance: two similar bugs in one repository. The second heal recalls the first's record (in
report.json and the PR body) and, in embedded mode, reaches its first plausible candidate in fewer
screenings than the same heal with memory off. The figures: `python evaluation/memory_recall.py`."""

from __future__ import annotations

import json

import pytest

from evaluation.memory_recall import SCENARIOS, run_scenario
from selfheal.agent.report.memory import LocalMemory
from tests.conftest import report_errors


@pytest.mark.slow
def test_the_second_of_two_similar_bugs_recalls_the_first_and_needs_fewer_screenings(tmp_path):
    first, without, with_memory = run_scenario(SCENARIOS["rate"], tmp_path)
    assert (first.status, without.status, with_memory.status) == ("healed", "healed", "healed")
    store = LocalMemory.of_repo(tmp_path / "rate" / "repo")
    records = store.records()
    # the first heal and the memory-on second heal remembered; the memory-off heal wrote nothing
    assert len(records) == 2
    assert records[0].functions[0] == "hit_rate" and records[0].families
    assert without.recalled == []
    assert with_memory.recalled == [records[0].id] and with_memory.helped == [True]
    assert records[1].recalled == (records[0].id,)
    assert with_memory.first_plausible is not None and without.first_plausible is not None
    assert with_memory.first_plausible < without.first_plausible

    out = tmp_path / "rate" / "heal-2-memory-on"
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report_errors(report) == []
    memory = report["memory"]
    assert (memory["version"], memory["store"]) == (1, "local")
    [recalled] = memory["recalled"]
    assert recalled["id"] == records[0].id and recalled["helped"] is True
    assert recalled["families"] == list(records[0].families)
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "#### Recalled from earlier heals of this repository" in summary
    assert (
        f"- `{records[0].id}` (" in summary and "helped: the fix is of its family or at its place" in summary
    )
    html = (out / "report.html").read_text(encoding="utf-8")
    assert f"<td><code>{records[0].id}</code></td>" in html
