"""What the five corpora's figures share: one JSON file per case in a results folder (grouped in a
subfolder per backend or runner where a case runs more than once), and a plain or Markdown table.

    save_result(folder, result, group="")     folder/[group/]<case>.json
    load_results(folder, grouped=False)       every saved result, in file-name order
    table(header, rows, markdown=False)       lines of an aligned text table, or a Markdown one
    minutes(seconds)                          "42.0s", or "3m07.5s" from a minute on
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def save_result(folder: Path, result: dict[str, Any], group: str = "") -> None:
    target = (folder / group if group else folder) / f"{result['case']}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=1), encoding="utf-8")


def load_results(folder: Path, grouped: bool = False) -> list[dict[str, Any]]:
    pattern = "*/*.json" if grouped else "*.json"
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob(pattern))]


def table(header: list[str], rows: list[list[str]], markdown: bool = False) -> list[str]:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return lines + ["| " + " | ".join(row) + " |" for row in rows]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [fmt.format(*header).rstrip(), *(fmt.format(*row).rstrip() for row in rows)]


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}m{seconds % 60:04.1f}s" if seconds >= 60 else f"{seconds:.1f}s"
