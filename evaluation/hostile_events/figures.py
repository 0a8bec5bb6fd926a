"""The corpus's figures: per family and runner, tried / decision correct / crashes, and what went wrong."""

from __future__ import annotations

from pathlib import Path

from evaluation.corpus import results as corpus_results
from evaluation.corpus.results import table
from evaluation.hostile_events.cases import FAMILIES

RUNNERS = ("action", "bot")


def save_result(folder: Path, result: dict) -> None:
    corpus_results.save_result(folder, result, result["runner"])


def load_results(folder: Path) -> list[dict]:
    return corpus_results.load_results(folder, grouped=True)


def _cell(results: list[dict]) -> str:
    if not results:
        return "-"
    correct = sum(r["correct"] for r in results)
    crashes = sum(r["crashed"] for r in results)
    return f"{len(results)} / {correct} / {crashes}, {sum(r['duration_s'] for r in results):.0f}s"


def render(results: list[dict], *, markdown: bool = False) -> str:
    runners = [r for r in RUNNERS if any(x["runner"] == r for x in results)]
    families = sorted({r["family"] for r in results}, key=lambda f: (*FAMILIES, f).index(f))
    lines = ["Hostile events: tried / decision correct / crashes (and time), per family and runner", ""]
    rows = []
    for family in [*families, "all"]:
        mine = [r for r in results if family in ("all", r["family"])]
        cases = len({r["case"] for r in mine})
        name = f"**{family}**" if markdown and family == "all" else family
        rows.append([name, str(cases), *(_cell([r for r in mine if r["runner"] == x]) for x in runners)])
    lines += table(["family", "cases", *runners], rows, markdown)
    wrong = [r for r in results if not r["correct"]]
    if wrong:
        lines += ["", "Wrong decisions and crashes", ""]
        for result in wrong:
            lines.append(f"{result['case']} [{result['runner']}] {result['decision']} ({result['status']}):")
            lines += [f"    {problem}" for problem in result["problems"]]
    return "\n".join(lines) + "\n"
