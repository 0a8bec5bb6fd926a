"""Whether two heals reported the same thing: report.json compared apart from what changes on
every run (times, the sandbox's uid, the commit the examples sit in).

A refactoring that keeps behaviour keeps every other field: status, targets, diagnosis, patch,
new tests and their proof, lessons, candidate counts, the verdict's rules.

    python evaluation/same_reports.py BEFORE AFTER      report.json files, or output folders
                                                        (or folders of them, compared by name)

Exit 0 when all pairs match, 1 with a field-by-field difference otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

RUN_VARYING = {"base_sha", "wall_s", "screen_s", "screened_per_s", "baseline_s"}
UID = re.compile(r"\buid \d+")


def normalized(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "<uid>" if k == "uid" else normalized(v) for k, v in value.items() if k not in RUN_VARYING}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    if isinstance(value, str):
        return UID.sub("uid <uid>", value)
    return value


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            if key not in after or key not in before:
                found.append(f"{path}.{key}: only in {'before' if key in before else 'after'}")
            else:
                found += differences(before[key], after[key], f"{path}.{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            d
            for i, (b, a) in enumerate(zip(before, after, strict=True))
            for d in differences(b, a, f"{path}[{i}]")
        ]
    return [] if before == after else [f"{path or '.'}: {before!r:.200} -> {after!r:.200}"]


def report_pairs(before: Path, after: Path) -> list[tuple[str, Path, Path]]:
    if before.is_file():
        return [(before.name, before, after)]
    if (before / "report.json").is_file():
        return [(before.name, before / "report.json", after / "report.json")]
    return [
        (run.name, run / "report.json", after / run.name / "report.json")
        for run in sorted(before.iterdir())
        if (run / "report.json").is_file()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    pairs = report_pairs(args.before, args.after)
    if not pairs:
        print(f"no report.json under {args.before}", file=sys.stderr)
        return 1
    same = True
    for name, old, new in pairs:
        if not new.is_file():
            print(f"{name}: no {new}")
            same = False
            continue
        found = differences(normalized(json.loads(old.read_text())), normalized(json.loads(new.read_text())))
        print(f"{name}: {'same' if not found else f'{len(found)} difference(s)'}")
        for line in found:
            print(f"  {line}")
        same = same and not found
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
