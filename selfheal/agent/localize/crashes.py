"""Crash sites: where a failing test's exception was raised in project source, and what it was.

Coverage misses code run under a tracer the project installs itself (its `sys.settrace` replaces
coverage's), in threads and in subprocesses; the traceback does not. Each traceback block of a
failing test's details (chained exceptions print several) gives the deepest frame that lies in
project source and the exception line that ends the block: `NameError: name 'totl' is not
defined` at `pkg/m.py:5`. The repair families read the type and the message to aim their edits.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from selfheal.agent.run.junit import TestOutcome
from selfheal.agent.run.tracebacks import parse_frames

TRACEBACK_START = "Traceback (most recent call last):"
EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::[ ]?(?P<message>.*))?$")
DID_YOU_MEAN = re.compile(r"\.? Did you mean:? '?(?P<name>[\w.]+)'?\??$")


@dataclass(frozen=True)
class Crash:
    """An exception raised (or passed through) in project source while a failing test ran."""

    file: str
    line: int
    exception: str  # the class name without its module: `KeyError`, `JSONDecodeError`
    message: str
    test: str
    suggestion: str = ""  # the interpreter's own "Did you mean: 'x'?", when it printed one
    raised_here: bool = True  # False when the exception left the project for a library frame
    # every project frame (file, line) the exception passed through, outermost first: a handler
    # around a call can be the place to catch what the callee raised
    through: tuple[tuple[str, int], ...] = ()

    @property
    def on_none(self) -> bool:
        return "NoneType" in self.message or "'None'" in self.message


def crash_sites(
    failing: list[str], outcomes: dict[str, TestOutcome], sources: set[str], root: str
) -> tuple[Crash, ...]:
    """One crash per traceback block of each failing test that passes through project source."""
    prefix = root.rstrip(os.sep) + os.sep
    found: dict[tuple[str, int, str, str], Crash] = {}
    for test in failing:
        outcome = outcomes.get(test)
        if outcome is None or TRACEBACK_START not in outcome.details:
            continue
        for block in outcome.details.split(TRACEBACK_START)[1:]:
            crash = _block_crash(block, test, sources, prefix)
            if crash is not None:
                found.setdefault((crash.file, crash.line, crash.exception, crash.message), crash)
    return tuple(found.values())


def _block_crash(block: str, test: str, sources: set[str], prefix: str) -> Crash | None:
    frames = parse_frames(block)
    project = [
        (i, path, frame.line)
        for i, frame in enumerate(frames)
        if (path := _relative(frame.file, prefix)) in sources
    ]
    exception_line = _exception_line(block)
    if not project or exception_line is None:
        return None
    index, path, line = project[-1]
    kind, message = exception_line
    suggestion = ""
    hint = DID_YOU_MEAN.search(message)
    if hint:
        suggestion, message = hint["name"], message[: hint.start()]
    return Crash(
        path,
        line,
        kind,
        message,
        test,
        suggestion,
        raised_here=index == len(frames) - 1,
        through=tuple((frame_path, frame_line) for _, frame_path, frame_line in project),
    )


def _relative(file: str, prefix: str) -> str:
    return file[len(prefix) :] if file.startswith(prefix) else file


def _exception_line(block: str) -> tuple[str, str] | None:
    """`KeyError: 'k'` -> ("KeyError", "'k'"): the first unindented line after the last frame."""
    lines = block.splitlines()
    last_frame = max((i for i, ln in enumerate(lines) if ln.lstrip().startswith('File "')), default=-1)
    for text in lines[last_frame + 1 :]:
        if not text or text[0].isspace():
            continue
        match = EXCEPTION_LINE.match(text.rstrip())
        if match is None:
            return None
        return match["type"].rsplit(".", 1)[-1], (match["message"] or "").strip()
    return None
