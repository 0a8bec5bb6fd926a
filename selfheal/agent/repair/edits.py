"""Source edits as byte spans: the common currency of every repair strategy.

An `Edit` replaces a span of a file's UTF-8 bytes (AST positions are byte offsets) with new text,
so untouched code keeps its formatting and comments and the diff shows only what changed.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Edit:
    file: str
    start: int  # byte offset
    end: int
    text: str

    def overlaps(self, other: Edit) -> bool:
        return self.file == other.file and self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class Candidate:
    """One proposed repair: edits plus what they mean, for ranking, reports and lessons."""

    edits: tuple[Edit, ...]
    family: str
    description: str
    file: str
    line: int
    function: str
    score: float
    strategy: str = "search"
    parts: tuple[Candidate, ...] = field(default=(), compare=False)

    @property
    def key(self) -> tuple:
        return tuple(sorted((e.file, e.start, e.end, e.text) for e in self.edits))

    def combined_with(self, other: Candidate) -> Candidate:
        first, second = sorted((self, other), key=lambda c: (c.file, c.line))
        return Candidate(
            edits=first.edits + second.edits,
            family=f"{first.family}+{second.family}",
            description=f"{first.description}; and {second.description}",
            file=first.file,
            line=first.line,
            function=first.function,
            score=self.score * other.score,
            strategy=self.strategy,
            parts=(first, second),
        )

    def conflicts_with(self, other: Candidate) -> bool:
        return any(a.overlaps(b) for a in self.edits for b in other.edits)


class SourceFile:
    """A file's text with byte-offset helpers for AST positions."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.data = text.encode("utf-8")
        self.line_starts = [0]
        for index, byte in enumerate(self.data):
            if byte == 0x0A:
                self.line_starts.append(index + 1)
        self.tree = ast.parse(text)

    def offset(self, lineno: int, col: int) -> int:
        return self.line_starts[lineno - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(node.end_lineno, node.end_col_offset),
        )

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.data[start:end].decode("utf-8")

    def line_text(self, lineno: int) -> str:
        start = self.line_starts[lineno - 1]
        end = self.line_starts[lineno] if lineno < len(self.line_starts) else len(self.data)
        return self.data[start:end].decode("utf-8").rstrip("\r\n")

    def indent_of(self, lineno: int) -> str:
        text = self.line_text(lineno)
        return text[: len(text) - len(text.lstrip())]


def apply_edits(sources: dict[str, str], edits: tuple[Edit, ...] | list[Edit]) -> dict[str, str]:
    """New text of every file the edits touch. Edits must not overlap."""
    by_file: dict[str, list[Edit]] = {}
    for edit in edits:
        by_file.setdefault(edit.file, []).append(edit)
    changed = {}
    for path, file_edits in by_file.items():
        data = sources[path].encode("utf-8")
        previous_start = None
        for edit in sorted(file_edits, key=lambda e: e.start, reverse=True):
            if previous_start is not None and edit.end > previous_start:
                raise ValueError(f"overlapping edits in {path}")
            data = data[: edit.start] + edit.text.encode("utf-8") + data[edit.end :]
            previous_start = edit.start
        changed[path] = data.decode("utf-8")
    return changed


def content_key(changed: dict[str, str]) -> str:
    digest = hashlib.sha256()
    for path in sorted(changed):
        digest.update(path.encode() + b"\0" + changed[path].encode() + b"\0")
    return digest.hexdigest()


class TopLevelSpans:
    """The byte spans of each file's top-level statements, parsed once per file. A mutation's
    syntax is checked, and its content keyed, on the statements it touches: the rest of the file
    is the base's, already whole statements, so the touched span compiles alone exactly when the
    whole file does. That keeps a candidate's cost independent of the file's length."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources
        self._files: dict[str, tuple[bytes, list[tuple[int, int]]] | None] = {}

    def _spans(self, path: str) -> tuple[bytes, list[tuple[int, int]]] | None:
        if path not in self._files:
            try:
                src = SourceFile(path, self.sources[path])
            except (SyntaxError, ValueError):
                self._files[path] = None
            else:
                spans = []
                for statement in src.tree.body:
                    decorators = getattr(statement, "decorator_list", None)
                    start = (
                        src.offset(min(d.lineno for d in decorators), 0)
                        if decorators
                        else src.offset(statement.lineno, statement.col_offset)
                    )
                    spans.append((start, src.offset(statement.end_lineno, statement.end_col_offset)))
                self._files[path] = (src.data, spans)
        return self._files[path]

    def touched(self, edits: tuple[Edit, ...] | list[Edit]) -> dict[str, tuple[int, int, str]] | None:
        """For each file the edits change: the base's byte span of the top-level statements they
        touch and that span's new text. None when an edit lies outside every top-level statement
        (a comment between them, or a file that does not parse): then only the whole file tells."""
        by_file: dict[str, list[Edit]] = {}
        for edit in edits:
            by_file.setdefault(edit.file, []).append(edit)
        found: dict[str, tuple[int, int, str]] = {}
        for path, file_edits in by_file.items():
            spans = self._spans(path)
            if spans is None:
                return None
            data, statements = spans
            low = min(e.start for e in file_edits)
            high = max(e.end for e in file_edits)
            hit = [(s, e) for s, e in statements if s <= high and e >= low]
            if not hit or hit[0][0] > low or hit[-1][1] < high:
                return None
            start, end = hit[0][0], hit[-1][1]
            segment, previous_start = data[start:end], None
            for edit in sorted(file_edits, key=lambda e: e.start, reverse=True):
                if previous_start is not None and edit.end > previous_start:
                    raise ValueError(f"overlapping edits in {path}")
                head, tail = segment[: edit.start - start], segment[edit.end - start :]
                segment, previous_start = head + edit.text.encode("utf-8") + tail, edit.start
            found[path] = (start, end, segment.decode("utf-8"))
        return found
