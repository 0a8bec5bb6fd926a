"""The source around the suspect lines, for the run report's heat strip.

    suspect_excerpt(localization, sources) -> {file: {"lines": N, "text": {"12": "    return x", ...}}}

A heat strip of one suspect line is one cell; a reader wants to see that line among its
neighbours. The localize step puts this excerpt in the trace (the output folder is all the report
is drawn from), so only the suspect lines and CONTEXT lines either side, each cut at MAX_LINE_CHARS
and at most MAX_LINES in all: the report shows where the heal looked, not the repository.
"""

from __future__ import annotations

from typing import Any

from selfheal.agent.localize.spectrum import Localization

CONTEXT = 3  # lines either side of a suspect line
MAX_LINE_CHARS = 160
MAX_LINES = 400
SUSPECTS = 60  # the most suspicious lines, as report.json lists them


def suspect_excerpt(localization: Localization, sources: dict[str, str]) -> dict[str, Any]:
    wanted: dict[str, set[int]] = {}
    for suspect in localization.lines[:SUSPECTS]:
        text = sources.get(suspect.file)
        if text is None:
            continue
        count = len(text.splitlines())
        near = range(max(1, suspect.line - CONTEXT), min(count, suspect.line + CONTEXT) + 1)
        wanted.setdefault(suspect.file, set()).update(near)
    excerpt: dict[str, Any] = {}
    left = MAX_LINES
    for path, numbers in wanted.items():
        lines = sources[path].splitlines()
        shown = sorted(numbers)[:left]
        left -= len(shown)
        excerpt[path] = {
            "lines": len(lines),
            "text": {str(n): _cut(lines[n - 1]) for n in shown},
        }
        if left <= 0:
            break
    return excerpt


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"
