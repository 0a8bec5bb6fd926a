"""report.html: one self-contained page per heal, for a maintainer who would rather look than read.

    write_html(out_dir)          # from the folder's report.json, trace.jsonl, conversation.jsonl,
                                 # patch.diff and tests/
    render_html(run)             # the page's text, from a `RunFiles`

Built from the output folder alone, so `selfheal report RUN_DIR` renders any earlier run the same
way the heal did. Jinja2 templates (autoescaped: every text in the page came from the repository
or a model); no script, stylesheet, font or image is fetched: the charts are inline SVG, the
model's conversation sits in collapsed <details>. The page is scrubbed like every output.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from selfheal.agent.exceptions import HealError
from selfheal.sandbox.secrets import Scrubber, process_scrubber

HTML_FILE = "report.html"
CONVERSATION_FILE = "conversation.jsonl"  # model/llm/transcript.py: one record per model call
WIDTH = 960  # of the charts, in SVG units
MODEL_NODES = ("debugger", "generator", "memory", "qa", "critic", "spec_tests")
MAX_TICKS = 3000  # screenings drawn on the timeline
MAX_LISTED = 40  # candidates listed per family
MAX_TEST_CHARS = 20_000  # of one new test file shown
HEAT_CONTEXT = 3  # lines drawn either side of the suspect lines, where the source is known


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


def _timeline(events: list[dict[str, Any]]) -> dict[str, Any]:
    timed = [e for e in events if isinstance(e.get("start"), (int, float))]
    if not timed:
        return {"lanes": [], "ticks": [], "height": 0, "total_s": 0.0}
    t0 = min(e["start"] for e in timed)
    t1 = max(e.get("end", e["start"]) for e in timed)
    total = max(t1 - t0, 1e-6)
    scale = WIDTH / total
    lanes: dict[str, list[dict[str, Any]]] = {}
    for event in timed:
        if event["node"] == "screen":
            continue
        duration = float(event.get("duration_s", 0.0))
        lanes.setdefault(event["node"], []).append({
            "x": round((event["start"] - t0) * scale, 2),
            "w": round(max(duration * scale, 1.5), 2),
            "title": f"{event['node']}: {duration:.2f} s",
        })  # fmt: skip
    rows = [
        {"name": name, "y": 22 * i, "bars": bars, "total_s": _lane_seconds(events, name)}
        for i, (name, bars) in enumerate(lanes.items())
    ]
    screens = [e for e in timed if e["node"] == "screen"][:MAX_TICKS]
    tick_y = 22 * len(rows)
    ticks = [
        {"x": round((e["start"] - t0) * scale, 2), "plausible": bool(e.get("plausible")),
         "title": f"#{e.get('n')} {e.get('family', '')}: {str(e.get('candidate', ''))[:80]}"}
        for e in screens
    ]  # fmt: skip
    return {
        "lanes": rows,
        "ticks": ticks,
        "tick_y": tick_y,
        "height": tick_y + (26 if ticks else 4),
        "total_s": round(total, 2),
        "width": WIDTH,
    }


def _lane_seconds(events: list[dict[str, Any]], node: str) -> float:
    return round(sum(float(e.get("duration_s", 0.0)) for e in events if e.get("node") == node), 2)


def _heat(localization: list[dict[str, Any]], excerpt: dict[str, Any]) -> list[dict[str, Any]]:
    """One strip per suspect file: a cell per line from a few lines before its first suspicious
    line to a few after its last, and below it those lines of source (the localize step's
    excerpt in the trace; a run folder without one gets the strip of the suspect lines alone)."""
    by_file: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for entry in localization:
        by_file[entry["file"]][int(entry["line"])] = entry
    best = max((float(e["score"]) for e in localization), default=0.0) or 1.0
    strips = []
    for path, lines in by_file.items():
        source = excerpt.get(path) or {}
        text = {int(n): line for n, line in (source.get("text") or {}).items()}
        first, last = min(lines), max(lines)
        if source.get("lines"):  # the file's length is known: context lines that exist
            first, last = (
                max(first - HEAT_CONTEXT, 1),
                max(min(last + HEAT_CONTEXT, int(source["lines"])), last),
            )
        span = last - first + 1
        cell = max(min(WIDTH / span, 24.0), 2.0)
        cells, code = [], []
        for offset in range(span):
            number = first + offset
            entry = lines.get(number)
            score = float(entry["score"]) / best if entry else 0.0
            cells.append({
                "x": round(offset * cell, 2), "w": round(cell, 2), "line": number,
                "heat": round(score, 3), "fill": _heat_colour(score),
                "title": f"{path}:{number}" + (f" {entry['function']}, {entry['score']}" if entry else ""),
            })  # fmt: skip
            if number in text:
                gap = bool(code) and code[-1]["line"] != number - 1
                code.append({"line": number, "text": text[number], "fill": _heat_colour(score),
                             "tint": _tint(_heat_colour(score)),
                             "score": entry["score"] if entry else None, "gap": gap})  # fmt: skip
        width = round(span * cell, 2)
        strips.append(
            {"file": path, "cells": cells, "width": width, "first": first, "last": last, "code": code}
        )
    return strips


def _tint(colour: str, share: float = 0.3) -> str:
    """`colour` mixed with white: a background the source stays readable on."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * share):02x}" for c in rgb)


def _localize_excerpt(events: list[dict[str, Any]]) -> dict[str, Any]:
    found = [e for e in events if e.get("node") == "localize" and isinstance(e.get("excerpt"), dict)]
    return found[-1]["excerpt"] if found else {}


def _heat_colour(share: float) -> str:
    if share <= 0:
        return "#eef1f4"
    # from pale yellow to deep red
    red, green, blue = 255, int(235 - 200 * share), int(160 - 140 * share)
    return f"#{red:02x}{max(green, 0):02x}{max(blue, 0):02x}"


def _families(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    tried: Counter[str] = Counter()
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    listed: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event.get("node") != "screen":
            continue
        family = str(event.get("family", "?"))
        tried[family] += 1
        outcome = _outcome(event)
        outcomes[family][outcome] += 1
        if len(listed[family]) < MAX_LISTED:
            listed[family].append(
                {"n": event.get("n"), "candidate": event.get("candidate"), "outcome": outcome}
            )
    most = max(tried.values(), default=1)
    return [
        {"family": family, "tried": count, "bar": round(300 * count / most, 1),
         "plausible": outcomes[family]["plausible"], "improving": outcomes[family]["fixed some"],
         "broken": outcomes[family]["broke a test"], "error": outcomes[family]["error"],
         "listed": listed[family], "more": count - len(listed[family])}
        for family, count in tried.most_common()
    ]  # fmt: skip


def _outcome(event: dict[str, Any]) -> str:
    if event.get("error"):
        return "error"
    if event.get("plausible"):
        return "plausible"
    if event.get("broken"):
        return "broke a test"
    if event.get("fixed"):
        return "fixed some"
    return "no change"


TEST_WRITERS = {"edge_cases": "edge cases", "spec_tests": "spec tests", "qa_adversarial": "adversarial tests"}


def _test_stages(events: list[dict[str, Any]]) -> list[str]:
    """What the test writers and the proof run did, one line each, in the order they ran: the
    report says so also when no test was shipped (nothing found, or nothing that failed before)."""
    lines = []
    for event in events:
        node = event.get("node")
        if node in TEST_WRITERS:
            cases = event.get("cases") or []
            probed = f"{event['probes']} inputs probed, " if event.get("probes") else ""
            line = (
                f"{TEST_WRITERS[node]} for {event.get('function', '?')}: {probed}{len(cases)} test(s) written"
            )
            notes = [str(n) for n in event.get("notes") or []] + [
                f"risk: {r}" for r in event.get("risks") or []
            ]
            lines.append(line + (f" — {'; '.join(notes)}" if notes else ""))
        elif node == "new_tests":
            lines.append(
                f"proof run: {event.get('fail_to_pass', 0)} fail before the fix and pass with it, "
                f"{event.get('guard', 0)} pass on both (guards), {event.get('discarded', 0)} discarded"
            )
    return lines


def _diff_lines(patch: str) -> list[dict[str, str]]:
    kinds = []
    for line in patch.splitlines():
        if line.startswith(("+++", "---", "diff ", "index ")):
            kind = "meta"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "ctx"
        kinds.append({"kind": kind, "text": line})
    return kinds


def _conversation(
    events: list[dict[str, Any]], calls: list[dict[str, Any]], usage: dict[str, Any]
) -> list[dict[str, Any]]:
    """One entry per model role: its calls, tokens and dollars (the ledger's, from report.json),
    and what it was told and answered, per conversation (conversation.jsonl). A run folder from
    before conversations were kept shows the role's trace events instead."""
    by_role = dict(usage.get("by_role") or {})
    said: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        said[str(call.get("role", "?"))].append(call)
    traced: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event.get("node") in MODEL_NODES:
            traced[event["node"]].append(event)
    # the ledger names every role that called a model; a run folder without one (older, or a
    # model that never answered) has only the trace to say which roles ran
    roles = list(dict.fromkeys([*by_role, *said])) if by_role or said else list(traced)
    out = []
    for role in roles:
        own = said.get(role, [])
        sums = by_role.get(role) or {
            "calls": len(own) or len(traced[role]),
            "tokens_in": sum(int(c.get("tokens_in", 0)) for c in own or traced[role]),
            "tokens_out": sum(int(c.get("tokens_out", 0)) for c in own or traced[role]),
            "cost_usd": round(sum(float(c.get("cost_usd", 0.0)) for c in own or traced[role]), 6),
        }
        out.append({
            "role": role, "calls": sums.get("calls", 0), "tokens_in": sums.get("tokens_in", 0),
            "tokens_out": sums.get("tokens_out", 0), "cost_usd": sums.get("cost_usd", 0.0),
            "said": [_call(c) for c in own],
            "left_out": sum(int(c.get("left_out", 0)) for c in own),
            "trace": [] if own else [_trace_body(e) for e in traced[role]],
        })  # fmt: skip
    return out


def _call(record: dict[str, Any]) -> dict[str, Any]:
    turns = [t for t in record.get("turns") or [] if isinstance(t, dict)]
    return {
        "call": record.get("call"), "conversation": record.get("conversation"),
        "tokens_in": record.get("tokens_in", 0), "tokens_out": record.get("tokens_out", 0),
        "cost_usd": record.get("cost_usd", 0.0), "model": record.get("model", ""),
        "error": record.get("error", ""), "left_out": record.get("left_out", 0),
        "turns": [
            {"kind": str(t.get("kind", "")), "label": _turn_label(t), "text": str(t.get("text", ""))}
            for t in turns
        ],
    }  # fmt: skip


def _turn_label(turn: dict[str, Any]) -> str:
    kind, tool = turn.get("kind"), turn.get("tool")
    if kind == "tool_call":
        return f"calls {tool}"
    if kind == "tool_result":
        return f"{tool} answered" if tool else "tool answered"
    return {"system": "system prompt", "user": "selfheal", "assistant": "model"}.get(str(kind), str(kind))


def _trace_body(event: dict[str, Any]) -> str:
    data = {k: v for k, v in event.items() if k not in ("node", "start", "end", "duration_s")}
    return json.dumps(data, indent=1, default=str)[:60_000]


def render_html(run: RunFiles) -> str:
    env = Environment(
        loader=PackageLoader("selfheal.agent.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    report = run.report
    return env.get_template("report.html.j2").render(
        report=report,
        timeline=_timeline(run.events),
        heat=_heat(report.get("localization") or [], _localize_excerpt(run.events)),
        families=_families(run.events),
        diff=_diff_lines(run.patch),
        test_files=run.test_files,
        test_stages=_test_stages(run.events),
        recalled=(report.get("memory") or {}).get("recalled") or [],
        conversation=_conversation(
            run.events, run.conversation, (report.get("model") or {}).get("usage") or {}
        ),
        metrics=report.get("metrics") or {},
    )


def write_html(out_dir: Path, scrub: Scrubber | None = None, report: dict[str, Any] | None = None) -> Path:
    """Render the folder's report.html beside its report.json (or from `report`); its path."""
    scrub = scrub or process_scrubber()
    target = out_dir / HTML_FILE
    text = scrub(render_html(RunFiles.read(out_dir, report)))
    try:
        # "replace": a lone surrogate from the repository or a model becomes "?", not a failed heal
        target.write_text(text, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise HealError(f"could not write {target}: {exc.strerror or exc}") from exc
    return target
