"""The corpus's figures: per family and runner, tried / decision correct / crashes, and what went wrong."""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.hostile_events.cases import FAMILIES

RUNNERS = ("action", "bot")


def save_result(folder: Path, result: dict) -> None:
    target = folder / result["runner"] / f"{result['case']}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=1), encoding="utf-8")


def load_results(folder: Path) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*/*.json"))]


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return lines + ["| " + " | ".join(row) + " |" for row in rows]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*header).rstrip(), *(fmt.format(*row).rstrip() for row in rows)]


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
    lines += _table(["family", "cases", *runners], rows, markdown)
    wrong = [r for r in results if not r["correct"]]
    if wrong:
        lines += ["", "Wrong decisions and crashes", ""]
        for result in wrong:
            lines.append(f"{result['case']} [{result['runner']}] {result['decision']} ({result['status']}):")
            lines += [f"    {problem}" for problem in result["problems"]]
    return "\n".join(lines) + "\n"
