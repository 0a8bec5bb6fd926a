"""The output folder of a heal: report.json, patch.diff, summary.md, lessons.md, trace.jsonl."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path

from selfheal.agent.events import Trace
from selfheal.agent.report import build_report
from selfheal.agent.result import HealResult
from selfheal.agent.summary import build_summary

NO_LESSONS = "- Nothing was repaired in this run, so there is no lesson to keep.\n"
OUTPUT_FILES = ("report.json", "patch.diff", "summary.md", "lessons.md", "trace.jsonl")


def default_out_dir(base: Path) -> Path:
    runs = base / ".selfheal" / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    ignore = base / ".selfheal" / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# selfheal run outputs\n*\n", encoding="utf-8")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return runs / f"{stamp}-{secrets.token_hex(3)}"


def write_outputs(result: HealResult, trace: Trace, out_dir: Path) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    report = build_report(result)
    (out_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out_dir / "patch.diff").write_text(result.patch, encoding="utf-8")
    (out_dir / "summary.md").write_text(build_summary(result, report), encoding="utf-8")
    lessons = "".join(f"- {lesson}\n" for lesson in report["lessons"]) or NO_LESSONS
    (out_dir / "lessons.md").write_text("# Lessons\n\n" + lessons, encoding="utf-8")
    trace.write(out_dir / "trace.jsonl")
    for path, text in result.test_files.items():
        # at the path it would have in the repository, under tests/ of the output folder
        target = out_dir / "tests" / (f"{result.project_dir}/{path}" if result.project_dir else path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return report
