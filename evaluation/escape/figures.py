"""The corpus's figures: per backend and family (contained / exposed as stated / escaped, and time),
per case and backend, and what each escape achieved. Plain text for a log, or Markdown."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from evaluation.corpus import results as corpus_results
from evaluation.corpus.results import minutes, table
from evaluation.escape.cases import load_cases
from evaluation.escape.harness import ALL_BACKENDS, CONTAINED, ESCAPED, EXPOSED, NOT_RUN, SKIPPED

SHORT = {
    CONTAINED: "contained",
    EXPOSED: "exposed",
    ESCAPED: "ESCAPED",
    NOT_RUN: "not-run",
    SKIPPED: "skipped",
}


def save_result(folder: Path, result: dict) -> None:
    corpus_results.save_result(folder, result, result["backend"])


def load_results(folder: Path) -> list[dict]:
    return corpus_results.load_results(folder, grouped=True)


def _counts(results: Iterable[dict]) -> str:
    ran = [r for r in results if r["outcome"] != SKIPPED]
    if not ran:
        return "skipped"
    count = {o: sum(r["outcome"] == o for r in ran) for o in (CONTAINED, EXPOSED, ESCAPED, NOT_RUN)}
    text = f"{count[CONTAINED]}/{count[EXPOSED]}/{count[ESCAPED]}"
    return text + (f" +{count[NOT_RUN]} not run" if count[NOT_RUN] else "")


def render(results: list[dict], *, markdown: bool = False, escapes: bool = True) -> str:
    backends = [b for b in ALL_BACKENDS if any(r["backend"] == b for r in results)]
    order = {c.id: i for i, c in enumerate(load_cases())}  # families in FAMILIES' order, cases as listed
    results = sorted(
        results, key=lambda r: (order.get(r["case"], len(order)), ALL_BACKENDS.index(r["backend"]))
    )
    families = list(dict.fromkeys(r["family"] for r in results))
    cases = list(dict.fromkeys((r["family"], r["case"]) for r in results))
    by = {(r["case"], r["backend"]): r for r in results}
    lines = ["Escape corpus: contained / exposed as stated / escaped, per backend", ""]
    rows = []
    for backend in backends:
        mine = [r for r in results if r["backend"] == backend]
        skipped = [r for r in mine if r["outcome"] == SKIPPED]
        time = sum(r["duration_s"] for r in mine)
        reason = f" ({skipped[0]['notes'][0]})" if skipped and len(skipped) == len(mine) else ""
        rows.append([backend, str(len(mine) - len(skipped)), _counts(mine) + reason, minutes(time)])
    lines += table(["backend", "cases run", "contained/exposed/escaped", "heal time (sum)"], rows, markdown)
    lines += ["", "Per family (contained/exposed/escaped, heal time)", ""]
    rows = []
    for family in families:
        row = [family, str(sum(1 for f, _ in cases if f == family))]
        for backend in backends:
            mine = [r for r in results if r["family"] == family and r["backend"] == backend]
            time = sum(r["duration_s"] for r in mine)
            row.append(f"{_counts(mine)} {minutes(time)}" if time else _counts(mine))
        rows.append(row)
    lines += table(["family", "cases", *backends], rows, markdown)
    lines += ["", "Per case", ""]
    rows = []
    for family, case in cases:
        cells = []
        for backend in backends:
            result = by.get((case, backend))
            cells.append(SHORT[result["outcome"]] + f" {result['duration_s']:.0f}s" if result else "-")
        rows.append([case, family, *cells])
    lines += table(["case", "family", *backends], rows, markdown)
    if escapes:
        found = [r for r in results if r["outcome"] in (ESCAPED, NOT_RUN, EXPOSED)]
        if found:
            lines += ["", "What escaped (and what was exposed as stated)", ""]
        for result in found:
            lines.append(
                f"{'- ' if markdown else ''}{result['case']} [{result['backend']}] {result['outcome']}:"
            )
            for what in result["escapes"]:
                lines.append(f"    escaped: {what}")
            for what in result["exposures"]:
                lines.append(f"    exposed as stated: {what}")
            if result["outcome"] == NOT_RUN:
                lines += [f"    {note}" for note in result["notes"]]
    return "\n".join(lines) + "\n"
