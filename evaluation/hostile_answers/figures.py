"""The corpus's figures: per family, cases tried, decisions correct and crashes, and the heals'
summed time; then every case whose decision was wrong, with what the judge found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluation.corpus import results as corpus_results
from evaluation.corpus.results import minutes, table
from evaluation.hostile_answers.cases import FAMILIES


def save_result(folder: Path, result: dict) -> None:
    corpus_results.save_result(folder, result)


def load_results(folder: Path) -> list[dict]:
    return corpus_results.load_results(folder)


def render(results: list[dict[str, Any]], *, markdown: bool = False) -> str:
    rows = []
    for family in [*FAMILIES, *sorted({r["family"] for r in results} - set(FAMILIES))]:
        mine = [r for r in results if r["family"] == family]
        if mine:
            rows.append([
                family, str(len(mine)), str(sum(r["correct"] for r in mine)),
                str(sum(r["crashed"] for r in mine)), minutes(sum(r["duration_s"] for r in mine)),
            ])  # fmt: skip
    rows.append([
        "all", str(len(results)), str(sum(r["correct"] for r in results)),
        str(sum(r["crashed"] for r in results)), minutes(sum(r["duration_s"] for r in results)),
    ])  # fmt: skip
    header = ["family", "tried", "decision correct", "crashes", "heal time (sum)"]
    lines = table(header, rows, markdown)
    wrong = [r for r in results if not r["correct"]]
    if wrong:
        lines += ["", "Wrong decisions and crashes:"]
        for r in wrong:
            lines.append(f"- {r['case']} ({r['family']}): " + "; ".join(r["problems"])[:600])
    return "Hostile model answers: tried / decision correct / crashes\n\n" + "\n".join(lines) + "\n"
