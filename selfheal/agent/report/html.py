"""report.html: one self-contained page per heal, for a maintainer who would rather look than read.

    write_html(out_dir)          # from the folder's report.json, trace.jsonl, conversation.jsonl,
                                 # patch.diff and tests/
    render_html(run)             # the page's text, from a `RunFiles`

Built from the output folder alone, so `selfheal report RUN_DIR` renders any earlier run the same
way the heal did. Jinja2 templates (autoescaped: every text in the page came from the repository
or a model); no script, stylesheet, font or image is fetched: the charts are inline SVG, the
model's conversation sits in collapsed <details>. The page is scrubbed like every output.

It reads in a reviewer's order: the verdict and how sure it is (report.json's confidence, ready
for review or a draft, and why), what to look at before merging, the root cause and the diff;
then the evidence. Report text with Markdown in it (root causes, lessons, reasons) has its code
spans and bold rendered by `inline_markdown`, everything else escaped. The layout holds from a
phone's width up (tests/agent/report/test_html_layout.py looks at it in Chromium).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape  # Jinja2's own escaping

from selfheal.agent.exceptions import HealError
from selfheal.agent.verdict import RULE_NAMES
from selfheal.sandbox.secrets import Scrubber, process_scrubber

HTML_FILE = "report.html"
CONVERSATION_FILE = "conversation.jsonl"  # model/llm/transcript.py: one record per model call
WIDTH = 960  # of the charts, in SVG units
MODEL_NODES = ("debugger", "generator", "memory", "qa", "critic", "spec_tests")
MAX_TICKS = 3000  # screenings drawn on the timeline
MAX_LISTED = 40  # candidates listed per family
MAX_TEST_CHARS = 20_000  # of one new test file shown
HEAT_CONTEXT = 3  # lines drawn either side of the suspect lines, where the source is known
# the candidates chart is drawn at its own size (not scaled), so its 11 px labels stay legible
BAR_BOX = 180  # its width, in SVG units and pixels
DIGIT_W = 7.0  # more than one digit's advance at 11 px in any sans-serif font
LABEL_GAP = 4
HEADLINE = {
    "healed": "every verdict rule holds",
    "partial": "some failures fixed, nothing broken",
    "not_healed": "no candidate met the verdict",
    "nothing_to_heal": "no test fails",
    "error": "the heal could not complete",
}
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.S)
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


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
    """A lane per stage, its bars in WIDTH units of the heal's time, and a tick per screening. The
    lanes' names are the page's text, not the chart's: a chart scaled to a phone's width would
    shrink them past reading."""
    timed = [e for e in events if isinstance(e.get("start"), (int, float))]
    if not timed:
        return {"lanes": [], "ticks": [], "total_s": 0.0, "width": WIDTH}
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
        {"name": name, "bars": bars, "total_s": _lane_seconds(events, name)} for name, bars in lanes.items()
    ]
    screens = [e for e in timed if e["node"] == "screen"][:MAX_TICKS]
    ticks = [
        {"x": round((e["start"] - t0) * scale, 2), "plausible": bool(e.get("plausible")),
         "colour": "#1a7f37" if e.get("plausible") else "#8c959f",
         "title": f"#{e.get('n')} {e.get('family', '')}: {str(e.get('candidate', ''))[:80]}"}
        for e in screens
    ]  # fmt: skip
    return {"lanes": rows, "ticks": ticks, "total_s": round(total, 2), "width": WIDTH}


def _lane_seconds(events: list[dict[str, Any]], node: str) -> float:
    return round(sum(float(e.get("duration_s", 0.0)) for e in events if e.get("node") == node), 2)


def _patch_body(patch: str, prefix: str = "") -> Iterator[tuple[str, int, str, str]]:
    """(file, line number in the code before the fix, kind, text) per line of the patch's hunks;
    an added line carries the number of the old line it goes before. Files are named as
    localization names them (without `prefix`, the project's folder); a new file is left out."""
    lines = patch.splitlines()
    path, number, header = "", 0, -1
    for index, text in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        hunk = HUNK.match(text)
        # a header pair, not a removed line that reads "-- ..." (its "+++" line is the next one)
        if text.startswith("--- ") and following.startswith("+++ "):
            name = text[4:].strip().removeprefix("a/")
            path = "" if name == "/dev/null" else name.removeprefix(prefix)
            number, header = 0, index + 1
        elif hunk:
            number = int(hunk.group(1))
        elif path and number and index != header and text[:1] in (" ", "-", "+"):
            yield path, number, text[:1], text[1:]
            number += text[:1] != "+"


def changed_lines(patch: str, prefix: str = "") -> dict[str, dict[int, str]]:
    """Per file, the lines of the code before the fix that the patch touches, each with what it
    does there: a removed line is changed; where the patch only inserts, the line it inserts after."""
    marks: dict[str, dict[int, str]] = defaultdict(dict)
    previous = ("", "")
    for path, number, kind, _ in _patch_body(patch, prefix):
        if kind == "-":
            marks[path][number] = "changed by the fix"
        elif kind == "+" and previous not in ((path, "-"), (path, "+")):
            if number > 1:
                marks[path].setdefault(number - 1, "the fix adds lines after it")
            else:
                marks[path].setdefault(1, "the fix adds lines before it")
        previous = (path, kind)
    return dict(marks)


def _removed_text(patch: str, prefix: str = "") -> dict[str, dict[int, str]]:
    """The removed lines' text by file and line: the source of a changed line the excerpt lacks."""
    found: dict[str, dict[int, str]] = defaultdict(dict)
    for path, number, kind, text in _patch_body(patch, prefix):
        if kind == "-":
            found[path][number] = text
    return dict(found)


def _heat(
    localization: list[dict[str, Any]], excerpt: dict[str, Any], patch: str = "", prefix: str = ""
) -> list[dict[str, Any]]:
    """One strip per suspect file: a cell per line from a few lines before its first suspicious
    line to a few after its last, and below it those lines of source (the localize step's
    excerpt in the trace; a run folder without one gets the strip of the suspect lines alone).
    The lines the fix changed are marked, and drawn also where localization did not rank them:
    how hot the fixed line was is what a reviewer checks the localization by."""
    by_file: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for entry in localization:
        by_file[entry["file"]][int(entry["line"])] = entry
    marks = changed_lines(patch, prefix)
    removed = _removed_text(patch, prefix)
    best = max((float(e["score"]) for e in localization), default=0.0) or 1.0
    return [
        _strip(path, lines, excerpt.get(path) or {}, marks.get(path, {}), removed.get(path, {}), best)
        for path, lines in by_file.items()
    ]


def _strip(
    path: str,
    lines: dict[int, dict[str, Any]],
    source: dict[str, Any],
    marks: dict[int, str],
    removed: dict[int, str],
    best: float,
) -> dict[str, Any]:
    text = {int(n): line for n, line in (source.get("text") or {}).items()}
    text = {**removed, **text}
    first, last = min([*lines, *marks]), max([*lines, *marks])
    if source.get("lines"):  # the file's length is known: context lines that exist
        first, last = max(first - HEAT_CONTEXT, 1), max(min(last + HEAT_CONTEXT, int(source["lines"])), last)
    span = last - first + 1
    cell = max(min(WIDTH / span, 24.0), 2.0)
    cells, code = [], []
    for offset in range(span):
        number = first + offset
        entry = lines.get(number)
        score = float(entry["score"]) / best if entry else 0.0
        mark = marks.get(number, "")
        title = f"{path}:{number}" + (f" {entry['function']}, {float(entry['score']):.2f}" if entry else "")
        cells.append({
            "x": round(offset * cell, 2), "w": round(cell, 2), "line": number,
            "heat": round(score, 3), "fill": _heat_colour(score), "mark": mark,
            "title": title + (f" ({mark})" if mark else ""),
        })  # fmt: skip
        if number in text:
            gap = bool(code) and code[-1]["line"] != number - 1
            code.append({"line": number, "text": text[number], "fill": _heat_colour(score),
                         "tint": _tint(_heat_colour(score)), "mark": mark,
                         "score": float(entry["score"]) if entry else None, "gap": gap})  # fmt: skip
    width = round(span * cell, 2)
    return {
        "file": path, "cells": cells, "width": width, "first": first, "last": last, "code": code,
        "marked": sorted(marks), "ranked": sorted(n for n in marks if n in lines),
    }  # fmt: skip


def _unranked_changes(localization: list[dict[str, Any]], patch: str, prefix: str) -> list[str]:
    """Files the fix changed that localization did not point at: no strip shows them."""
    suspects = {e["file"] for e in localization}
    return [
        f"{path}:{min(lines)}" for path, lines in changed_lines(patch, prefix).items() if path not in suspects
    ]


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


def bar_geometry(count: int, most: int, box: float = BAR_BOX) -> dict[str, float]:
    """The bar of `count` candidates (the longest family tried `most`) and where its label starts:
    the longest bar leaves room for the longest label, so no count is drawn past the box."""
    room = LABEL_GAP + DIGIT_W * len(str(max(most, 1))) + 1
    width = (box - room) * count / most if most > 0 else 0.0
    return {"bar": round(max(width, 1.0), 1), "label_x": round(max(width, 1.0) + LABEL_GAP, 1)}


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
        {"family": family, "tried": count, **bar_geometry(count, most),
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


def inline_markdown(text: object) -> Markup:
    """`text` as HTML: Markdown's code spans and **bold**, everything else escaped. The text came
    from a repository or a model: nothing in it may become markup of the page, so it is escaped
    first and only these two tags are put around what was escaped."""
    source = "" if text is None else str(text)
    parts, at = [], 0
    for match in CODE_SPAN.finditer(source):
        parts += [_bold(source[at : match.start()]), Markup("<code>%s</code>") % match.group(2).strip()]
        at = match.end()
    parts.append(_bold(source[at:]))
    return Markup("").join(parts)


def _bold(text: str) -> Markup:
    return Markup(BOLD.sub(r"<strong>\1</strong>", str(escape(text))))


def sandbox_line(sandbox: dict[str, Any]) -> str:
    """What isolated the repository's code, in one line: the backend, whose user, which
    namespaces, the network. The full statement (report.json's `isolation`) is the details."""
    facts = sandbox.get("facts") or {}
    parts = [f"sandbox: {sandbox.get('backend', '?')}"]
    if facts:
        if facts.get("separate_user"):
            parts.append("another user")
        if facts.get("capabilities"):
            parts.append("capabilities " + ", ".join(facts["capabilities"]))
        namespaces = facts.get("namespaces") or []
        parts.append("namespaces " + ", ".join(namespaces) if namespaces else "no namespaces")
    parts.append("network" if sandbox.get("network") else "no network")
    if facts and not facts.get("contained"):
        parts.append("not contained")
    return " · ".join(parts)


def _pinned(report: dict[str, Any]) -> str:
    """How far the tests pin the fix, when they do not leave it open (that is a warning)."""
    found = report.get("disagreement")
    if not found or found.get("open"):
        return ""
    others = (report.get("metrics") or {}).get("candidates_screened", 0) - 1
    if found["plausible"] < 2 and others > 0:
        return f"None of the other {others} candidates screened made the failing tests pass."
    if found["plausible"] < 2:
        return "No other candidate was screened: nothing was compared with this patch."
    if found.get("measured"):
        return (
            f"{found['plausible']} distinct plausible patches agree on all {found['probes']} generated "
            "inputs they were run on."
        )
    return f"{found['plausible']} distinct plausible patches; they could not be compared on generated inputs."


def _warnings(report: dict[str, Any]) -> list[dict[str, Any]]:
    """What a reviewer must look at before merging, each with its heading and points."""
    found = []
    disagreement = report.get("disagreement") or {}
    if disagreement.get("open"):
        standing = [g for g in disagreement["groups"] if not g["refuted_by"]]
        found.append({
            "title": "The tests allow more than one fix",
            "text": f"{disagreement['plausible']} distinct patches pass the tests but behave "
            f"{len(standing)} different ways on {disagreement['probes']} generated inputs: the tests "
            "do not say which is meant.",
            "points": [f"fix {i + 1}{' (shipped)' if g['shipped'] else ''}: {g['members'][0]}"
                       for i, g in enumerate(standing)],
        })  # fmt: skip
    if report.get("overfit_risks"):
        found.append({
            "title": "Possible overfit",
            "text": "The patch has signs of fitting the tests rather than the bug:",
            "points": [f"`{r['function']}` ({r['kind'].replace('_', ' ')}): {r['detail']}"
                       for r in report["overfit_risks"]],
        })  # fmt: skip
    if report.get("bypass"):
        found.append({
            "title": "Only a bypass was found",
            "text": "The failing tests pass because the patch skips code in "
            + ", ".join(f"`{f}`" for f in report["bypass"]) + ".",
            "points": [],
        })  # fmt: skip
    if report.get("critic"):
        found.append({"title": "The reviewer model's concerns", "text": "", "points": list(report["critic"])})
    if report.get("open_risks"):
        found.append({"title": "Open risks", "text": "", "points": list(report["open_risks"])})
    return found


def _rules(verdict: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {**rule, "name": RULE_NAMES.get(int(rule["rule"]), "")} for rule in (verdict or {}).get("rules") or []
    ]


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("selfheal.agent.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = inline_markdown
    # one precision per kind of number across the page: scores and probabilities two decimals,
    # seconds one, dollars four
    env.filters["two"] = lambda value: f"{float(value):.2f}"
    env.filters["secs"] = lambda value: f"{float(value):.1f} s"
    env.filters["usd"] = lambda value: f"${float(value):.4f}"
    return env


def render_html(run: RunFiles) -> str:
    report = run.report
    prefix = f"{report['project_dir']}/" if report.get("project_dir") else ""
    localization = report.get("localization") or []
    template = _environment().get_template("report.html.j2")
    return template.render(
        report=report,
        headline=HEADLINE.get(str(report.get("status")), ""),
        confidence=report.get("confidence"),
        pinned=_pinned(report),
        warnings=_warnings(report),
        sandbox=sandbox_line(report.get("sandbox") or {}),
        isolation=[p for p in str((report.get("sandbox") or {}).get("isolation", "")).split("; ") if p],
        timeline=_timeline(run.events),
        heat=_heat(localization, _localize_excerpt(run.events), run.patch, prefix),
        unranked=_unranked_changes(localization, run.patch, prefix),
        families=_families(run.events),
        bar_box=BAR_BOX,
        rules=_rules(report.get("verdict")),
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
