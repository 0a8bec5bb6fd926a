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
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from selfheal.agent.config import DEFAULT_PROTECTED
from selfheal.agent.localize.spectrum import matches_any
from selfheal.agent.model.editblocks import FORMAT_REMINDER, Block, SearchReplace, parse_blocks
from selfheal.agent.model.editmatch import FUNCTION, Applied, FileLines, Refused, apply_function, apply_search
from selfheal.agent.model.readtools import confine_path, malformed_path
from selfheal.agent.model.untrusted import unshown
from selfheal.agent.repair.edits import Candidate, Edit, apply_edits
from selfheal.agent.verdict import changed_tables, protected_changes

_SURROGATE = re.compile("[\ud800-\udfff]")

# What the project installs is its maintainers' decision, and a change to it would be installed
# before the sandbox closes: a repair never adds, removes or changes a dependency. These files
# declare nothing else; pyproject.toml and setup.cfg only in the tables below.
DEPENDENCY_FILES = (
    "requirements*.txt",
    "requirements*.in",
    "constraints*.txt",
    "**/requirements/*.txt",
    "Pipfile",
    "Pipfile.lock",
    "poetry.lock",
    "pdm.lock",
    "uv.lock",
    "environment.yml",
    "environment.yaml",
    "pyproject.toml",
    "setup.cfg",
)
DEPENDENCY_TABLES = {
    "pyproject.toml": (
        "project.dependencies", "project.optional-dependencies", "build-system", "dependency-groups",
        "tool.poetry.dependencies", "tool.poetry.dev-dependencies", "tool.poetry.group",
        "tool.pdm.dev-dependencies", "tool.uv",
    ),
    "setup.cfg": ("options", "options.extras_require"),
}  # fmt: skip
NO_NEW_DEPENDENCIES = (
    "A repair may not add, remove or change dependencies; fix the code with the standard library "
    "and the packages the project already uses"
)


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
    problems += dependency_changes(changed, sources)
    if problems:
        return EditResult((), tuple(applied), tuple(problems))
    return EditResult(edits, tuple(applied), (), changed)


def edits_from_answer(
    text: str, sources: dict[str, str], *, protected: tuple[str, ...] = DEFAULT_PROTECTED
) -> EditResult:
    """Parse an answer and apply its blocks; malformed blocks fail the whole answer."""
    bad = _SURROGATE.search(text)
    if bad:  # it could never be written to a file as UTF-8
        line = text.count("\n", 0, bad.start()) + 1
        return EditResult((), problems=(
            f"line {line} of your answer holds U+{ord(bad.group()):04X}, a lone surrogate that is not valid "
            "Unicode; write the code as plain UTF-8 text (use an escape such as '\\ud800' inside a "
            "string literal if the code needs that value)",
        ))  # fmt: skip
    # the prompts showed invisible characters as [U+XXXX]: an edit copied from them means the characters
    parsed = parse_blocks(unshown(text))
    if parsed.problems:
        return EditResult((), problems=parsed.problems)
    return apply_blocks(parsed.blocks, sources, protected=protected)


def _resolve(raw: str, sources: dict[str, str], protected: tuple[str, ...]) -> str:
    path = raw.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    # the debugger's tools' confinement: a NUL byte, a line break or an absurd length is refused
    # at once (never echoed whole); an absolute, `..` or .git/ path only when it means no source
    malformed = malformed_path(path)
    if malformed:
        raise Refused(malformed)
    confined, why = confine_path(path)
    _refuse_protected(path, protected)
    if path in sources:
        return path
    suffix = [s for s in sources if s.endswith("/" + path) or path.endswith("/" + s)]
    if len(suffix) == 1:
        _refuse_protected(suffix[0], protected)
        return suffix[0]
    if confined is None:  # nothing inside the project is meant: say what is wrong with the path
        raise Refused(f"{why}. Files you may edit: {', '.join(sorted(sources)[:10])}.")
    if matches_any(path, DEPENDENCY_FILES):
        raise Refused(f"refused: {path} declares the project's dependencies. {NO_NEW_DEPENDENCIES}")
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


def dependency_changes(changes: dict[str, str], sources: dict[str, str]) -> list[str]:
    """Why a set of file changes adds, removes or changes a dependency (empty when it does not):
    any change to a requirements/lock file or to setup.py (code run at install time), or to the
    dependency tables of pyproject.toml and setup.cfg."""
    problems = []
    for path, text in sorted(changes.items()):
        name = path.rsplit("/", 1)[-1]
        if matches_any(path, DEPENDENCY_FILES) and name not in DEPENDENCY_TABLES:
            problems.append(f"{path} declares the project's dependencies")
        elif name == "setup.py":
            problems.append("setup.py is run when the project is installed and declares its dependencies")
        elif name in DEPENDENCY_TABLES:
            touched = changed_tables(name, sources.get(path, ""), text, DEPENDENCY_TABLES[name])
            if touched:
                problems.append(f"{path}: changes its dependencies ({', '.join(touched)})")
    return [f"refused: {p}. {NO_NEW_DEPENDENCIES}" for p in problems]


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
