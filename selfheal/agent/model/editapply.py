"""A model's code edits -> `Edit`s (byte spans over the original sources), or feedback for it.

    edits_from_answer(text, sources)   the answer's blocks (editblocks.py), then apply_blocks
    apply_blocks(blocks, sources)      each block placed in its file by editmatch.py

Everything is a dry run first: every block must apply, no two may overlap, every changed Python
file must still parse, and no protected file (tests, conftest.py, CI: the `protected` globs) nor
protected setting may change; otherwise no edit is returned and `EditResult.feedback()` tells the
model, block by block, what failed (for a missing SEARCH, the nearest lines of the file with line
numbers).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from selfheal.agent.config import DEFAULT_PROTECTED
from selfheal.agent.localize.spectrum import matches_any
from selfheal.agent.model.editblocks import FORMAT_REMINDER, Block, SearchReplace, parse_blocks
from selfheal.agent.model.editmatch import FUNCTION, Applied, FileLines, Refused, apply_function, apply_search
from selfheal.agent.repair.edits import Candidate, Edit, apply_edits
from selfheal.agent.verdict import protected_changes


@dataclass(frozen=True)
class EditResult:
    edits: tuple[Edit, ...]  # empty unless every block applied (all or nothing)
    applied: tuple[Applied, ...] = ()
    problems: tuple[str, ...] = ()
    changed: dict[str, str] = field(default_factory=dict, compare=False)  # new texts, when ok

    @property
    def ok(self) -> bool:
        return not self.problems and bool(self.edits)

    def feedback(self) -> str:
        """What to tell the model when not ok: every problem, then the format reminder."""
        if self.ok:
            return ""
        return (
            "Your edits were not applied (nothing was changed):\n"
            + "\n".join(f"- {p}" for p in self.problems)
            + "\n"
            + FORMAT_REMINDER
        )

    def candidate(self, description: str, *, score: float = 1.0, strategy: str = "generator") -> Candidate:
        """These edits as a repair candidate (only when ok)."""
        if not self.ok:
            raise ValueError("no candidate from edits that did not apply")
        first = next(a for a in self.applied if a.edit is not None)
        return Candidate(
            edits=self.edits,
            family="llm_function" if first.match == FUNCTION else "llm_edit",
            description=description,
            file=first.file,
            line=first.line,
            function=first.function,
            score=score,
            strategy=strategy,
        )


def apply_blocks(
    blocks: Iterable[Block],
    sources: dict[str, str],
    *,
    protected: tuple[str, ...] = DEFAULT_PROTECTED,
) -> EditResult:
    """Dry-run every block against `sources` ({path: text}); all apply or none (see the module doc)."""
    blocks = tuple(blocks)
    if not blocks:
        return EditResult((), problems=("no edit blocks found in your answer",))
    files: dict[str, FileLines] = {}
    applied: list[Applied] = []
    problems: list[str] = []
    for number, block in enumerate(blocks, 1):
        where = f"block {number}" + (f" (line {block.origin} of your answer)" if block.origin else "")
        try:
            path = _resolve(block.file, sources, protected)
            lines = files.setdefault(path, FileLines(sources[path]))
            if isinstance(block, SearchReplace):
                applied.append(apply_search(block, path, lines))
            else:
                applied.append(apply_function(block, path, lines))
        except Refused as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        return EditResult((), tuple(applied), tuple(problems))

    problems += _overlaps(applied)
    edits = tuple(a.edit for a in applied if a.edit is not None)
    if not problems and not edits:
        problems.append("the edits change nothing: every REPLACE equals its SEARCH")
    if problems:
        return EditResult((), tuple(applied), tuple(problems))
    changed = apply_edits(sources, edits)
    for path, text in sorted(changed.items()):
        if path.endswith(".py"):
            try:
                ast.parse(text)
            except SyntaxError as exc:
                at = FileLines(text)
                line = at.lines[exc.lineno - 1].strip() if exc.lineno and exc.lineno <= len(at.lines) else ""
                problems.append(
                    f"{path} would not parse after your edits: {exc.msg} at line {exc.lineno}: {line!r}"
                )
    problems += [f"refused: {p}" for p in protected_changes(changed, sources, protected)]
    if problems:
        return EditResult((), tuple(applied), tuple(problems))
    return EditResult(edits, tuple(applied), (), changed)


def edits_from_answer(
    text: str, sources: dict[str, str], *, protected: tuple[str, ...] = DEFAULT_PROTECTED
) -> EditResult:
    """Parse an answer and apply its blocks; malformed blocks fail the whole answer."""
    parsed = parse_blocks(text)
    if parsed.problems:
        return EditResult((), problems=parsed.problems)
    return apply_blocks(parsed.blocks, sources, protected=protected)


def _resolve(raw: str, sources: dict[str, str], protected: tuple[str, ...]) -> str:
    path = raw.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    _refuse_protected(path, protected)
    if path in sources:
        return path
    suffix = [s for s in sources if s.endswith("/" + path) or path.endswith("/" + s)]
    if len(suffix) == 1:
        _refuse_protected(suffix[0], protected)
        return suffix[0]
    names = sorted(sources)
    close = difflib.get_close_matches(path, names, n=5, cutoff=0.5)
    base = path.rsplit("/", 1)[-1]
    close += [s for s in names if s.rsplit("/", 1)[-1] == base and s not in close]
    hint = (
        f" Close names: {', '.join(close[:6])}."
        if close
        else f" Files you may edit: {', '.join(names[:10])}."
    )
    if len(suffix) > 1:
        hint = f" It could be any of: {', '.join(suffix[:6])}; give the full path."
    raise Refused(f"{path} is not one of the source files.{hint}")


def _refuse_protected(path: str, protected: tuple[str, ...]) -> None:
    glob = next((glob for glob in protected if matches_any(path, (glob,))), None)
    if glob is not None:
        raise Refused(
            f"refused: {path} is protected (matches {glob!r}). Tests, conftest.py, test "
            "configuration and CI files are never edited; change the code under test instead."
        )


def _overlaps(applied: list[Applied]) -> list[str]:
    problems = []
    spans = [(i, a) for i, a in enumerate(applied, 1) if a.edit is not None]
    for position, (i, a) in enumerate(spans):
        for j, b in spans[position + 1 :]:
            if a.edit.overlaps(b.edit):
                problems.append(
                    f"blocks {i} and {j} change overlapping lines of {a.file} (from line {a.line} and "
                    f"line {b.line}); merge them into one block"
                )
    return problems
