"""Fitting one text into a model's context window: plain text, a traceback, source, a prompt field.

    fit_text / fit_traceback / fit_source         one text within max_tokens; cuts are marked
    fit_field(render, text, provider, ...)        one field of a prompt, in what the window leaves

A small local model (llama.cpp, 4096 tokens) refuses a request whose prompt is longer than its
context. Everything here keeps the parts a debugging model needs (the exception, the project
frames, the lines around the suspect) and says what it left out, with line numbers, so the model
can ask for it again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from selfheal.agent.model.llm.base import Message
from selfheal.agent.model.tokencount import (
    CountFn,
    context_tokens_of,
    estimate_tokens,
    request_tokens,
    token_counter,
)

LINE_FLOOR = 64  # a line is never cut shorter than this many tokens (a long path, a message)


# -- fitting one text -------------------------------------------------------------------------


def fit_lines(
    lines: Sequence[str],
    priorities: Sequence[float],
    max_tokens: int,
    *,
    count: CountFn = estimate_tokens,
    marker: Callable[[int, int], str] | None = None,
) -> str:
    """The lines with the lowest priority values that fit in `max_tokens`, in their order, each
    run of left-out lines replaced by `marker(first, last)` (0-based indexes, inclusive)."""
    mark = marker or _lines_marker
    order = sorted(range(len(lines)), key=lambda i: (priorities[i], i))

    def render(keep: int) -> str:
        kept = set(order[:keep])
        out: list[str] = []
        gap_start = None
        for index, line in enumerate(lines):
            if index in kept:
                if gap_start is not None:
                    out.append(mark(gap_start, index - 1))
                    gap_start = None
                out.append(line)
            elif gap_start is None:
                gap_start = index
        if gap_start is not None:
            out.append(mark(gap_start, len(lines) - 1))
        return "\n".join(out)

    low, high = 0, len(lines)  # the most lines kept that fit: a binary search on a near-monotone count
    if count(render(high)) <= max_tokens:
        return render(high)
    while low < high - 1:
        middle = (low + high) // 2
        if count(render(middle)) <= max_tokens:
            low = middle
        else:
            high = middle
    for keep in range(low, -1, -1):
        text = render(keep)
        if count(text) <= max_tokens:
            return text
    return ""


def _lines_marker(first: int, last: int) -> str:
    cut = last - first + 1
    return f"... {cut} line{'s' if cut != 1 else ''} omitted ..."


def cut_line(line: str, max_tokens: int, count: CountFn = estimate_tokens) -> str:
    """One long line within `max_tokens`: two thirds of head and one of tail around a marker."""
    if count(line) <= max_tokens:
        return line
    low, high = 0, len(line)
    best = f"... {len(line)} characters omitted ..."
    while low < high:  # the longest kept part that fits
        keep = (low + high + 1) // 2
        head, tail = keep - keep // 3, keep // 3
        text = f"{line[:head]} ... {len(line) - keep} characters omitted ... {line[len(line) - tail :]}"
        if count(text) <= max_tokens:
            low, best = keep, text
        else:
            high = keep - 1
    return best


def _cut_long_lines(lines: list[str], max_tokens: int, count: CountFn) -> list[str]:
    """No line of several may take more than a third of the budget (a huge repr, a minified file),
    unless it is short anyway: an exception's message cut to its marker would say nothing."""
    limit = max(max_tokens // min(max(len(lines), 1), 3), LINE_FLOOR)
    return [cut_line(line, limit, count) for line in lines]


def fit_text(text: str, max_tokens: int, *, count: CountFn = estimate_tokens) -> str:
    """`text` within `max_tokens`: its first lines and its last ones (two from the head for each
    one from the tail), the middle replaced by `... N lines omitted ...`."""
    if count(text) <= max_tokens:
        return text
    lines = _cut_long_lines(text.splitlines(), max_tokens, count)
    n = len(lines)
    priorities = [min(i, 2 * (n - 1 - i)) for i in range(n)]
    return fit_lines(lines, priorities, max_tokens, count=count)


# -- tracebacks -------------------------------------------------------------------------------

_FRAME = re.compile(r'^(?P<indent>\s*)File "(?P<file>[^"]+)", line \d+(?:, in .*)?$')
_CARETS = re.compile(r"^\s*[~^]+[\s~^]*$")
_REPEATED = re.compile(r"^\s*\[Previous line repeated \d+ more times?\]$")
_LIBRARY = re.compile(
    r"(?:site|dist)-packages[/\\]|[/\\]lib[/\\](?:python|pypy)\d[\d.]*[/\\]"
    r"|^<frozen |[/\\](?:_pytest|pluggy)[/\\]"
)


def is_library_file(path: str) -> bool:
    """A frame in an installed package or the standard library, not in the project."""
    return bool(_LIBRARY.search(path))


def fit_traceback(text: str, max_tokens: int, *, count: CountFn = estimate_tokens) -> str:
    """A Python traceback (or output holding one) within `max_tokens`.

    Kept, most important first: the first line and the exception line(s) after the last frame;
    the raising frame; frames in project files, the last ones first; then library and stdlib
    frames, the last ones first; other lines in between (chained exceptions). Left-out frames
    become `  ... 12 frames omitted ...`. Text without frames is fitted as plain text."""
    if count(text) <= max_tokens:
        return text
    # the ^^^^ under a frame's code only points at columns: the first thing to go, unmarked
    lines = [line for line in text.splitlines() if not _CARETS.match(line)]
    frames: list[tuple[int, int, bool]] = []  # (first line, last line, in the project)
    index = 0
    while index < len(lines):
        found = _FRAME.match(lines[index])
        if found is None:
            index += 1
            continue
        end = index + 1
        depth = len(found["indent"])
        while end < len(lines) and (
            _REPEATED.match(lines[end])
            or (lines[end].strip() and _indent(lines[end]) > depth and not _FRAME.match(lines[end]))
        ):
            end += 1
        frames.append((index, end - 1, not is_library_file(found["file"])))
        index = end
    if not frames:
        return fit_text(text, max_tokens, count=count)
    lines = _cut_long_lines(lines, max_tokens, count)  # after parsing: a cut frame line is no frame

    priorities: list[float] = [5.0] * len(lines)  # lines between frames: chained exceptions
    priorities[0] = 0
    after = frames[-1][1] + 1  # the exception: its first and last line above all
    for position, tail in enumerate(range(after, len(lines))):
        last = tail == len(lines) - 1
        priorities[tail] = 0 if position == 0 or last else 1 + position / len(lines)
    ranked = sorted(
        range(len(frames)),
        key=lambda f: (f != len(frames) - 1, not frames[f][2], -f),
    )
    for rank, frame in enumerate(ranked):
        first, last, _ = frames[frame]
        for line in range(first, last + 1):
            priorities[line] = 10 + rank + (line - first) / (last - first + 2)
    frame_at = {first: True for first, _, _ in frames}

    def marker(first: int, last: int) -> str:
        cut = sum(1 for line in range(first, last + 1) if line in frame_at)
        if cut:
            return f"  ... {cut} frame{'s' if cut != 1 else ''} omitted ..."
        return "  " + _lines_marker(first, last)

    return fit_lines(lines, priorities, max_tokens, count=count, marker=marker)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


# -- source -----------------------------------------------------------------------------------

_DEFINITION = re.compile(r"^\s*(?:async\s+def|def|class)\s")


def fit_source(
    text: str,
    max_tokens: int,
    focus_lines: Iterable[int] = (),
    *,
    first_line: int = 1,
    numbered: bool = False,
    count: CountFn = estimate_tokens,
) -> str:
    """Python source within `max_tokens`: the focus lines, the `def`/`class` lines enclosing
    them, then the lines nearest to them; left-out runs become `... lines 40-88 omitted ...`.

    Line numbers count from `first_line` (the text may be a part of a file). Without focus lines
    the outline (every def/class line) goes first, then the lines from the top. `numbered`
    writes kept lines as `12 | code`, the way read_file and inspect_function show source."""
    lines = text.splitlines()
    width = len(str(first_line + len(lines) - 1))

    def show(index: int, line: str) -> str:
        return f"{first_line + index:>{width}} | {line}" if numbered else line

    shown = [show(i, line) for i, line in enumerate(lines)]
    if count("\n".join(shown)) <= max_tokens:
        return "\n".join(shown)
    focus = sorted({n - first_line for n in focus_lines if 0 <= n - first_line < len(lines)})
    priorities: list[float]
    if focus:
        priorities = [
            2 + min(abs(i - f) for f in focus) + (0.5 if i < focus[0] else 0) for i in range(len(lines))
        ]
        for f in focus:
            priorities[f] = 0
            for depth, header in enumerate(_enclosing(lines, f)):  # the innermost first
                priorities[header] = min(priorities[header], 1 + depth / 100)
    else:
        priorities = [
            1 + i / len(lines) if _DEFINITION.match(line) else 2 + i for i, line in enumerate(lines)
        ]
    shown = _cut_long_lines(shown, max_tokens, count)

    def marker(first: int, last: int) -> str:
        cut = next((lines[i] for i in range(first, last + 1) if lines[i].strip()), "")
        pad = "" if numbered else " " * _indent(cut)  # at the depth where the cut begins
        a, b = first + first_line, last + first_line
        return f"{pad}... line {a} omitted ..." if a == b else f"{pad}... lines {a}-{b} omitted ..."

    return fit_lines(shown, priorities, max_tokens, count=count, marker=marker)


def _enclosing(lines: Sequence[str], index: int) -> list[int]:
    """The def/class lines enclosing line `index`, innermost first (by indentation)."""
    probe = index
    while probe < len(lines) and not lines[probe].strip():
        probe += 1
    depth = _indent(lines[probe]) if probe < len(lines) else 0
    if _DEFINITION.match(lines[index]):
        depth = _indent(lines[index])
    found = []
    for above in range(index - 1, -1, -1):
        line = lines[above]
        if line.strip() and _indent(line) < depth:
            depth = _indent(line)
            if _DEFINITION.match(line):
                found.append(above)
            if depth == 0:
                break
    return found


# -- one prompt field within what the window leaves ------------------------------------------------
def fit_field(
    render: Callable[[str], Sequence[Message]],
    text: str,
    provider: object,
    answer_tokens: int,
    *,
    focus_lines: Iterable[int] = (),
    source: bool = True,
    schema: dict[str, Any] | None = None,
) -> str:
    """`text`, one field of a prompt, cut to what the provider's window leaves once the rest of
    the prompt (`render("")`), the schema and the answer's room are counted. Unchanged when the
    window is unknown or the text fits. Source keeps the focus lines and their enclosing defs;
    other text keeps its head and tail."""
    window = context_tokens_of(provider)
    if window is None or not text:
        return text
    count = token_counter(provider)
    reserve = min(answer_tokens, max(window // 8, 512))
    budget = window - reserve - request_tokens(render(""), schema=schema, count=count)
    if count(text) <= budget:
        return text
    budget = max(budget, 64)
    return (
        fit_source(text, budget, focus_lines, count=count) if source else fit_text(text, budget, count=count)
    )
