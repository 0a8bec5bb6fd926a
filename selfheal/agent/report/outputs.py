"""The output folder of a heal: report.json, report.html, patch.diff, summary.md, lessons.md, trace.jsonl,
and conversation.jsonl when a model took part (what each role was told and answered, per call).

report.json is written last and atomically (a temporary file renamed into place): where it exists,
it is whole and every other file was written before it. A folder that cannot be written (a full
disk, no permission) is a HealError naming it, with no report.json left behind.

Every file in it is scrubbed of secret values (`selfheal.sandbox.secrets.Scrubber`): a test may
print whatever it read, and the folder is uploaded as an artifact and becomes the PR body.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

from selfheal.agent.events import Trace
from selfheal.agent.exceptions import HealError
from selfheal.agent.report.checkpoints import FOLDER
from selfheal.agent.report.html import write_html
from selfheal.agent.report.reportjson import build_report
from selfheal.agent.report.result import HealResult
from selfheal.agent.report.runfiles import CONVERSATION_FILE
from selfheal.agent.report.summary import build_summary
from selfheal.sandbox.secrets import Scrubber, process_scrubber

NO_LESSONS = "- Nothing was repaired in this run, so there is no lesson to keep.\n"
OUTPUT_FILES = ("report.json", "report.html", "patch.diff", "summary.md", "lessons.md", "trace.jsonl")


def default_out_dir(base: Path) -> Path:
    runs = runs_folder(base)
    runs.mkdir(parents=True, exist_ok=True)
    ignore = base / ".selfheal" / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# selfheal run outputs\n*\n", encoding="utf-8")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return runs / f"{stamp}-{secrets.token_hex(3)}"


def runs_folder(base: Path) -> Path:
    """`base/.selfheal/runs`, refused (HealError) when either is a symbolic link: a repository that
    commits `.selfheal -> /somewhere` would have selfheal write there."""
    runs = base / ".selfheal" / "runs"
    for path in (runs.parent, runs):
        if path.is_symlink():
            raise HealError(f"{path} is a symbolic link: selfheal writes no output through it (use --out)")
    return runs


def scrubbed_report(result: HealResult, scrubber: Scrubber | None = None) -> dict:
    """report.json's content, as `write_outputs` would write it now."""
    # scrubbed as data, before serialising: JSON would escape a value with quotes or non-ASCII
    return (scrubber or process_scrubber()).scrub_data(build_report(result))


def write_outputs(result: HealResult, trace: Trace, out_dir: Path, scrubber: Scrubber | None = None) -> dict:
    """Write the output folder, scrubbed; the report as written. `scrubber` defaults to the
    process's (`process_scrubber`: built from the secrets the entrypoint was started with)."""
    scrub = scrubber or process_scrubber()
    report = scrubbed_report(result, scrub)
    final = out_dir / "report.json"
    partial = out_dir / f".report.json.{secrets.token_hex(4)}.tmp"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        if final.is_file() and not final.is_symlink():
            final.unlink()  # a report of an earlier run in this folder must not stand for this one
        _write_files(result, trace, out_dir, report, scrub)
        write_html(out_dir, scrub, report)  # from the files just written, before report.json
        with partial.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(report, indent=2) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, final)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise HealError(
            f"could not write the output folder {out_dir}: {exc.strerror or exc}; report.json was not written"
        ) from exc
    return report


def _write_files(result: HealResult, trace: Trace, out_dir: Path, report: dict, scrub: Scrubber) -> None:
    """Every file of the output folder but report.json."""
    (out_dir / "patch.diff").write_text(scrub(result.patch), encoding="utf-8")
    (out_dir / "summary.md").write_text(scrub(build_summary(result, report)), encoding="utf-8")
    lessons = "".join(f"- {lesson}\n" for lesson in report["lessons"]) or NO_LESSONS
    (out_dir / "lessons.md").write_text("# Lessons\n\n" + lessons, encoding="utf-8")
    with (out_dir / "trace.jsonl").open("w", encoding="utf-8") as handle:
        for event in trace.events:
            record = json.loads(json.dumps(event.as_dict(), default=str))
            handle.write(json.dumps(scrub.scrub_data(record)) + "\n")
    conversation = out_dir / CONVERSATION_FILE
    if result.conversation:
        with conversation.open("w", encoding="utf-8") as handle:
            for record in result.conversation:
                handle.write(json.dumps(scrub.scrub_data(record)) + "\n")
    elif conversation.is_file() and not conversation.is_symlink():
        conversation.unlink()  # an earlier run's, in this folder: not this heal's conversation
    for path, text in result.test_files.items():
        target = new_test_file(out_dir, result, path, scrub)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(scrub(text), encoding="utf-8")
    # the checkpoints were written during the heal (scrubbed then, by whichever scrubber the loop
    # had); once more with this one. Only selfheal's own files: --out may name a folder with others.
    if (out_dir / FOLDER).is_dir():
        scrub_folder(out_dir / FOLDER, scrub)


def new_test_file(out_dir: Path, result: HealResult, path: str, scrub: Scrubber | None = None) -> Path:
    """Where the output folder holds the new test file `path` (project-relative): under its
    tests/, at the path the file would have in the repository."""
    scrub = scrub or process_scrubber()
    return out_dir / "tests" / scrub(f"{result.project_dir}/{path}" if result.project_dir else path)


def scrub_folder(root: Path, scrub: Scrubber) -> list[Path]:
    """Scrub every regular file under `root` in place; the files that changed. Symbolic links are
    neither followed nor rewritten. JSON files are scrubbed as data, so they stay valid."""
    changed = []
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            raw = path.read_bytes()
            text = raw.decode("utf-8", "surrogateescape")
            is_json = path.suffix in (".json", ".jsonl")
            clean = _scrub_json(text, scrub, lines=path.suffix == ".jsonl") if is_json else None
            if clean is None:
                clean = scrub(text)
            if clean != text:
                path.write_bytes(clean.encode("utf-8", "surrogateescape"))
                changed.append(path)
    return changed


def _scrub_json(text: str, scrub: Scrubber, *, lines: bool) -> str | None:
    """`text` scrubbed as JSON (JSON Lines when `lines`), unchanged when nothing in it is secret;
    None when it is not JSON (then it is scrubbed as text)."""
    try:
        records: list[Any] = (
            [json.loads(line) for line in text.splitlines() if line.strip()] if lines else [json.loads(text)]
        )
    except ValueError:
        return None
    clean = [scrub.scrub_data(record) for record in records]
    if clean == records:
        return text
    if lines:
        return "".join(json.dumps(record) + "\n" for record in clean)
    return json.dumps(clean[0], indent=1) + "\n"
