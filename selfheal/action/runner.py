"""The runner's conventions: step outputs, the job summary, workflow-command annotations, and
keeping everything else in the job log from being read as a workflow command."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from pathlib import Path

# The runner obeys a line of a step's stdout or stderr that starts with `::` after leading
# whitespace (`::add-mask::`, `::stop-commands::`, `::error file=…::`), and the legacy `##[`
# form anywhere in a line (actions/runner ActionCommand.TryParseV2 / TryParse). It splits lines
# at \n and \r.
NEUTRAL_PREFIX = "> "
LINE_BREAKS = "\r\n"
# what .NET's TrimStart would skip besides Python's whitespace, and what renders as nothing
INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"


def write_outputs(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    """Append `name=value` pairs to GITHUB_OUTPUT (heredoc form, safe for any value)."""
    path = env.get("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        for name, value in values.items():
            delimiter = f"selfheal_{uuid.uuid4().hex}"
            handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def write_summary(env: Mapping[str, str], markdown: str) -> None:
    path = env.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(markdown.rstrip() + "\n")


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, message: str, *, file: str | None = None, line: int | None = None) -> str:
    """`::error file=…,line=…::message` — GitHub shows it on the file in the run and the PR.
    The message and file may quote the repository, so `##[` in them is broken up too."""
    props = []
    if file:
        props.append(f"file={escape_property(_break_legacy(file))}")
        if line:
            props.append(f"line={line}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{escape_data(_break_legacy(message))}"


def _break_legacy(text: str) -> str:
    return text.replace("##[", "## [")


class CommandGuard:
    """Rewrites text on its way to the job log so that no line of it is a workflow command: a line
    whose first visible character is `:` gets NEUTRAL_PREFIX, and `##[` becomes `## [`.

    It keeps state across writes, so a command split over several writes (`:` then
    `:add-mask::x`) is caught as well as one in a single write. One guard per output stream."""

    def __init__(self) -> None:
        self.line_blank = True  # nothing but whitespace on the current line so far
        self.hashes = 0  # how many `#` the current line ends with

    def feed(self, text: str) -> str:
        out: list[str] = []
        for char in text:
            if char in LINE_BREAKS:
                self.line_blank, self.hashes = True, 0
                out.append(char)
                continue
            if self.line_blank and (char.isspace() or char in INVISIBLE):
                out.append(char)
                continue
            if self.line_blank and char == ":":
                out.append(NEUTRAL_PREFIX)
            self.line_blank = False
            if char == "[" and self.hashes >= 2:
                out.append(" ")
            self.hashes = self.hashes + 1 if char == "#" else 0
            out.append(char)
        return "".join(out)

    def command(self, line: str) -> str:
        """One of selfheal's own commands as it must be written: alone on a line."""
        start = "" if self.line_blank else "\n"
        self.line_blank, self.hashes = True, 0
        return f"{start}{line}\n"


def neutralise_commands(text: str) -> str:
    """`text` (all of it repository-controlled) with no line that the runner would obey."""
    return CommandGuard().feed(text)


def relative_to_workspace(env: Mapping[str, str], path: Path) -> str:
    """Paths in outputs are relative to GITHUB_WORKSPACE, where the next steps (upload-artifact) look."""
    workspace = env.get("GITHUB_WORKSPACE")
    if workspace:
        try:
            return os.path.relpath(path, workspace) if path.is_relative_to(workspace) else str(path)
        except ValueError:
            return str(path)
    return str(path)
