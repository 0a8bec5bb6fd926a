"""report.html's heat strips: how suspicious localization found each line of a suspect file, with
the lines the fix changed marked, read from the patch."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from selfheal.agent.report.htmlcharts import WIDTH

HEAT_CONTEXT = 3  # lines drawn either side of the suspect lines, where the source is known
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


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


def heat(
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


def unranked_changes(localization: list[dict[str, Any]], patch: str, prefix: str) -> list[str]:
    """Files the fix changed that localization did not point at: no strip shows them."""
    suspects = {e["file"] for e in localization}
    return [
        f"{path}:{min(lines)}" for path, lines in changed_lines(patch, prefix).items() if path not in suspects
    ]


def _tint(colour: str, share: float = 0.3) -> str:
    """`colour` mixed with white: a background the source stays readable on."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * share):02x}" for c in rgb)


def localize_excerpt(events: list[dict[str, Any]]) -> dict[str, Any]:
    found = [e for e in events if e.get("node") == "localize" and isinstance(e.get("excerpt"), dict)]
    return found[-1]["excerpt"] if found else {}


def _heat_colour(share: float) -> str:
    if share <= 0:
        return "#eef1f4"
    # from pale yellow to deep red
    red, green, blue = 255, int(235 - 200 * share), int(160 - 140 * share)
    return f"#{red:02x}{max(green, 0):02x}{max(blue, 0):02x}"
