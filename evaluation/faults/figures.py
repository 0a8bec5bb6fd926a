"""The fault cases' figures: per family, cases run, held (every requirement) and failed (which
requirement, how often); then every case that failed, with what was seen."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from evaluation.corpus import results as corpus_results
from evaluation.corpus.results import table
from evaluation.faults.cases import FAMILIES


def save_result(folder: Path, result: dict) -> None:
    corpus_results.save_result(folder, result)


def load_results(folder: Path) -> list[dict]:
    return corpus_results.load_results(folder)


def render(results: list[dict], *, markdown: bool = False) -> str:
    order = {f: i for i, f in enumerate(FAMILIES)}
    families = sorted({r["family"] for r in results}, key=lambda f: order.get(f, len(order)))
    rows = []
    for family in families:
        mine = [r for r in results if r["family"] == family]
        held = sum(r["held"] for r in mine)
        which = Counter(req for r in mine for req in r["failed"])
        failed = ", ".join(f"{req} x{n}" for req, n in sorted(which.items())) or "-"
        seconds = sum(r["duration_s"] for r in mine)
        rows.append([family, str(len(mine)), str(held), str(len(mine) - held), failed, f"{seconds:.0f}s"])
    total_held = sum(r["held"] for r in results)
    rows.append(["all", str(len(results)), str(total_held), str(len(results) - total_held), "",
                 f"{sum(r['duration_s'] for r in results):.0f}s"])  # fmt: skip
    lines = table(["family", "run", "held", "failed", "failed requirements", "time (sum)"], rows, markdown)
    broken = [r for r in results if not r["held"]]
    if broken:
        lines += ["", "failed cases:"]
        for r in broken:
            for requirement, seen in r["failed"].items():
                lines.append(f"  {r['case']}: {requirement}: {seen}")
    return "\n".join(lines) + "\n"
