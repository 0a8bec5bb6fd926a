"""A heal's output folder as report.html reads it: report.json, trace.jsonl, conversation.jsonl,
patch.diff and tests/. Read from the folder alone, so an earlier run renders as the heal did."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfheal.agent.exceptions import HealError

CONVERSATION_FILE = "conversation.jsonl"  # model/llm/transcript.py: one record per model call
MAX_TEST_CHARS = 20_000  # of one new test file shown


@dataclass(frozen=True)
class RunFiles:
    report: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    patch: str = ""
    test_files: dict[str, str] = field(default_factory=dict)
    conversation: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def read(cls, out_dir: Path, report: dict[str, Any] | None = None) -> RunFiles:
        """The folder's files; `report` given: instead of its report.json (not written yet)."""
        try:
            if report is None:
                report = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise HealError(f"{out_dir} holds no report.json: not the output folder of a heal") from exc
        except (OSError, ValueError) as exc:
            raise HealError(f"could not read {out_dir / 'report.json'}: {exc}") from exc
        events = _json_lines(out_dir / "trace.jsonl")
        conversation = _json_lines(out_dir / CONVERSATION_FILE)
        patch_file = out_dir / "patch.diff"
        patch = patch_file.read_text(encoding="utf-8") if patch_file.is_file() else report.get("patch", "")
        tests_dir = out_dir / "tests"
        test_files = {}
        if tests_dir.is_dir():
            for path in sorted(tests_dir.rglob("*.py")):
                if path.is_file() and not path.is_symlink():
                    text = path.read_text(encoding="utf-8", errors="replace")
                    test_files[str(path.relative_to(tests_dir))] = text[:MAX_TEST_CHARS]
        return cls(report, events, patch, test_files, conversation)


def _json_lines(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON Lines file; none when it is missing; a line that is not JSON skipped."""
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
