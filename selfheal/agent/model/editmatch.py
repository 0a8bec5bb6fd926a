"""A model's code edits -> `Edit`s (byte spans over the original sources), or feedback for it.

The answer is plain text, so code is never JSON-escaped. Two kinds of block:

    pkg/module.py
    <<<<<<< SEARCH
    lines copied from the file
    =======
    the lines that replace them
    >>>>>>> REPLACE

    pkg/module.py
    <<<<<<< FUNCTION Class.method
    def method(self, x):
        return x + 1
    >>>>>>> REPLACE

Syntax accepted:

- The path is the last non-blank line before the opening marker; surrounding backticks, `*`,
  quotes, a leading `#`/`File:`/`Path:` and a trailing `:` are stripped. A block right after
  another (no line between them but blanks and fences) edits the same file. Lines that open or
  close a ``` fence are ignored outside blocks (a block may sit in a fence, the path before it).
- Markers are 5 to 9 `<`, `=` or `>` at the start of a line followed by the keyword (SEARCH,
  FUNCTION, REPLACE; any case). The first divider line of `=` after SEARCH ends the search text.
  The closing line of a FUNCTION block may say REPLACE, FUNCTION or END.
- FUNCTION names a function: `name` (module level, else the only function of that name),
  `Class.method`, or `outer.inner` / `outer.<locals>.inner`. Its code must define exactly that one
  function; it replaces the function's lines. Code that starts with decorators replaces the old
  decorators too; code without decorators keeps the old ones. It is re-indented to the old `def`.
- The whole answer may instead be JSON: `{"file", "function", "code"}`, `{"file", "search",
  "replace"}`, a list of those, or `{"edits": [...]}`. Any other prose outside blocks is ignored.

Matching, graded, each SEARCH against the ORIGINAL file (not against earlier blocks' results):
`exact` (whole lines, any line ending), `trailing_whitespace`, `indentation` (the block is
uniformly shifted; its replacement is shifted by the same amount), `blank_lines` (leading and
trailing blank lines of SEARCH trimmed, then the tolerant levels again). A SEARCH that matches more
than once at the first level that finds it is refused with the line numbers.

Everything is a dry run first: every block must apply, no two may overlap, every changed Python
file must still parse, and no protected file (tests, conftest.py, CI: the `protected` globs) nor
protected setting may change; otherwise no edit is returned and `EditResult.feedback()` tells the
model, block by block, what failed (for a missing SEARCH, the nearest lines of the file with line
numbers).
"""

from __future__ import annotations

import ast
import difflib
import json
import re
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from selfheal.agent.config import DEFAULT_PROTECTED
from selfheal.agent.localize.spectrum import FunctionIndex, matches_any
from selfheal.agent.repair.edits import Candidate, Edit, apply_edits
from selfheal.agent.verdict import protected_changes

EXACT, TRAILING_WHITESPACE, INDENTATION, BLANK_LINES, FUNCTION = (
    "exact",
    "trailing_whitespace",
    "indentation",
    "blank_lines",
    "function",
)
FORMAT_REMINDER = (
    "Format: the file path on its own line, then\n<<<<<<< SEARCH\n(lines copied exactly from the file)\n"
    "=======\n(the new lines)\n>>>>>>> REPLACE\n"
    "or, to replace a whole function,\n<<<<<<< FUNCTION name_or_Class.method\n(the complete new def)\n"
    ">>>>>>> REPLACE"
)
NEAREST_MAX_LINES = 12


@dataclass(frozen=True)
class SearchReplace:
    file: str
    search: str
    replace: str
    origin: int = 0  # line of the answer where the block starts (1-based; 0 = not from text)


@dataclass(frozen=True)
class FunctionReplacement:
    file: str
    function: str  # "name", "Class.method", "outer.inner"
    code: str
    origin: int = 0


Block = SearchReplace | FunctionReplacement


@dataclass(frozen=True)
class ParsedBlocks:
    blocks: tuple[Block, ...]
    problems: tuple[str, ...] = ()  # malformed blocks, in the model's terms


@dataclass(frozen=True)
class Applied:
    """How one block landed."""

    block: Block
    edit: Edit | None  # None: the block changes nothing
    match: str  # exact | trailing_whitespace | indentation | blank_lines | function
    file: str  # the source path it resolved to
    line: int  # first line of the original it replaces (1-based)
    function: str  # the enclosing function there, as localization names it


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


# -- parsing ----------------------------------------------------------------------------------

_OPEN = re.compile(r"^\s*<{5,9}\s*(SEARCH|FUNCTION)\b[ \t]*(.*?)\s*$", re.IGNORECASE)
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_CLOSE = re.compile(r"^\s*>{5,9}\s*(REPLACE|FUNCTION|END)?\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_PATH_NOISE = re.compile(r"^(?:#+\s*|(?:file|path)\s*:\s*)", re.IGNORECASE)


def parse_blocks(text: str) -> ParsedBlocks:
    """The blocks of an answer (see the module doc); malformed ones become problems."""
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    blocks: list[Block] = []
    problems: list[str] = []
    path_line: str | None = None
    previous_path = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        opened = _OPEN.match(line)
        if not opened:
            if (
                line.strip()
                and not _FENCE.match(line)
                and not _CLOSE.match(line)
                and not _DIVIDER.match(line)
            ):
                path_line = line
            index += 1
            continue
        number = len(blocks) + len(problems) + 1
        kind, argument = opened.group(1).upper(), opened.group(2)
        path = _clean_path(path_line) if path_line is not None else previous_path
        previous_path = path
        start = index
        index += 1
        if kind == "SEARCH":
            search, divider, replace, closed = [], False, [], False
            while index < len(lines):
                if _CLOSE.match(lines[index]) and divider:
                    closed = True
                    break
                if _OPEN.match(lines[index]):
                    break
                if not divider and _DIVIDER.match(lines[index]):
                    divider = True
                elif divider:
                    replace.append(lines[index])
                else:
                    search.append(lines[index])
                index += 1
            where = f"block {number} (line {start + 1} of your answer)"
            if not divider:
                problems.append(f"{where}: no ======= line after <<<<<<< SEARCH")
            elif not closed:
                problems.append(f"{where}: no >>>>>>> REPLACE line (was the answer cut off?)")
            elif not path:
                problems.append(f"{where}: no file path on the line before <<<<<<< SEARCH")
            else:
                blocks.append(SearchReplace(path, "\n".join(search), "\n".join(replace), start + 1))
        else:
            code, closed = [], False
            while index < len(lines):
                if _CLOSE.match(lines[index]):
                    closed = True
                    break
                if _OPEN.match(lines[index]):
                    break
                code.append(lines[index])
                index += 1
            where = f"block {number} (line {start + 1} of your answer)"
            if not closed:
                problems.append(
                    f"{where}: no >>>>>>> REPLACE line after the function (was the answer cut off?)"
                )
            elif not argument.strip():
                problems.append(f"{where}: name the function: <<<<<<< FUNCTION name_or_Class.method")
            elif not path:
                problems.append(f"{where}: no file path on the line before <<<<<<< FUNCTION")
            else:
                blocks.append(
                    FunctionReplacement(path, argument.strip().strip("`"), "\n".join(code), start + 1)
                )
        index += 1
        path_line = None
    if not blocks and not problems:
        return _parse_json_blocks(text)
    return ParsedBlocks(tuple(blocks), tuple(problems))


def _clean_path(line: str) -> str:
    path = line.strip().strip("*`'\"").strip()
    path = _PATH_NOISE.sub("", path).strip().strip("*`'\"").rstrip(":").strip()
    return path


def _parse_json_blocks(text: str) -> ParsedBlocks:
    body = text.strip()
    fenced = re.search(r"```[a-zA-Z]*\n(.*?)```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return ParsedBlocks((), ("no edit blocks found in your answer",))
    if isinstance(data, dict) and isinstance(data.get("edits"), list):
        data = data["edits"]
    items = data if isinstance(data, list) else [data]
    blocks: list[Block] = []
    problems: list[str] = []
    for number, item in enumerate(items, 1):
        try:
            blocks.append(block_from_dict(item))
        except ValueError as exc:
            problems.append(f"edit {number}: {exc}")
    return ParsedBlocks(tuple(blocks), tuple(problems))


def blocks_as_value(blocks: Iterable[Block]) -> dict[str, list[dict[str, str]]]:
    """Blocks as the JSON value the generator prompt's schema describes (for checks and traces)."""
    edits = []
    for block in blocks:
        if isinstance(block, SearchReplace):
            edits.append({"file": block.file, "search": block.search, "replace": block.replace})
        else:
            edits.append({"file": block.file, "function": block.function, "code": block.code})
    return {"edits": edits}


def block_from_dict(data: object) -> Block:
    """`{"file", "function", "code"}` or `{"file", "search", "replace"}` as a block."""
    if not isinstance(data, dict) or not isinstance(data.get("file"), str):
        raise ValueError(
            'expected an object with "file" and either "function" and "code" or "search" and "replace"'
        )
    if isinstance(data.get("function"), str) and isinstance(data.get("code"), str):
        return FunctionReplacement(data["file"], data["function"], data["code"])
    if isinstance(data.get("search"), str) and isinstance(data.get("replace"), str):
        return SearchReplace(data["file"], data["search"], data["replace"])
    raise ValueError(f'{data["file"]}: needs "function" and "code", or "search" and "replace" (strings)')


# -- applying ---------------------------------------------------------------------------------


class _Lines:
    """A file as lines (split at "\\n" only, as the AST counts them) with byte offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        raw = text.split("\n")
        self.lines: list[str] = []
        self.eols: list[str] = []
        for position, chunk in enumerate(raw):
            last = position == len(raw) - 1
            if last and chunk == "":
                break
            if not last and chunk.endswith("\r"):
                self.lines.append(chunk[:-1])
                self.eols.append("\r\n")
            else:
                self.lines.append(chunk)
                self.eols.append("" if last else "\n")
        self.starts = [0]
        for line, eol in zip(self.lines, self.eols, strict=True):
            self.starts.append(self.starts[-1] + len((line + eol).encode("utf-8")))
        crlf = sum(eol == "\r\n" for eol in self.eols)
        self.eol = "\r\n" if crlf and crlf >= sum(eol == "\n" for eol in self.eols) else "\n"

    def span(self, first: int, count: int) -> tuple[int, int]:
        """Byte span of lines [first, first + count) including their line endings."""
        return self.starts[first], self.starts[first + count]

    def join(self, new_lines: Sequence[str], first: int, count: int) -> str:
        """New lines to stand where lines [first, first + count) were, with the file's endings."""
        if not new_lines:
            return ""
        last_eol = self.eols[first + count - 1] if count else self.eol
        body = [line + self.eol for line in new_lines[:-1]]
        return "".join(body) + new_lines[-1] + last_eol

    def numbered(self, first: int, count: int) -> str:
        shown = range(first, min(first + count, first + NEAREST_MAX_LINES, len(self.lines)))
        out = "\n".join(f"  {i + 1:>5} | {self.lines[i]}" for i in shown)
        if count > NEAREST_MAX_LINES:
            out += f"\n        | ... ({count - NEAREST_MAX_LINES} more lines)"
        return out


class _Refused(Exception):
    """One block cannot apply; the message is for the model."""


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
    files: dict[str, _Lines] = {}
    applied: list[Applied] = []
    problems: list[str] = []
    for number, block in enumerate(blocks, 1):
        where = f"block {number}" + (f" (line {block.origin} of your answer)" if block.origin else "")
        try:
            path = _resolve(block.file, sources, protected)
            lines = files.setdefault(path, _Lines(sources[path]))
            if isinstance(block, SearchReplace):
                applied.append(_apply_search(block, path, lines))
            else:
                applied.append(_apply_function(block, path, lines))
        except _Refused as exc:
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
                at = _Lines(text)
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
    raise _Refused(f"{path} is not one of the source files.{hint}")


def _refuse_protected(path: str, protected: tuple[str, ...]) -> None:
    glob = next((glob for glob in protected if matches_any(path, (glob,))), None)
    if glob is not None:
        raise _Refused(
            f"refused: {path} is protected (matches {glob!r}). Tests, conftest.py, test "
            "configuration and CI files are never edited; change the code under test instead."
        )


# -- SEARCH/REPLACE ---------------------------------------------------------------------------


def _split(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _apply_search(block: SearchReplace, path: str, lines: _Lines) -> Applied:
    search, replace = _split(block.search), _split(block.replace)
    if not any(line.strip() for line in search):
        raise _Refused(f"{path}: SEARCH is empty; copy the lines to change from the file into it")
    found = _match(lines.lines, search, replace)
    if found is None:
        raise _Refused(_not_found(path, lines, search))
    level, starts, count, new_lines = found
    if len(starts) > 1:
        places = " and ".join(_lines_label(s, count) for s in starts[:2])
        more = f" (and {len(starts) - 2} more)" if len(starts) > 2 else ""
        raise _Refused(
            f"{path}: SEARCH matches {len(starts)} places, {places}{more}; "
            "add lines around it so it matches exactly one"
        )
    first = starts[0]
    start, end = lines.span(first, count)
    text = lines.join(new_lines, first, count)
    original = lines.text.encode("utf-8")[start:end].decode("utf-8")
    edit = Edit(path, start, end, text) if text != original else None
    return Applied(block, edit, level, path, first + 1, FunctionIndex(lines.text).function_at(first + 1))


_Match = tuple[str, list[int], int, list[str]]


def _match(file_lines: list[str], search: list[str], replace: list[str]) -> _Match | None:
    """(level, start indexes, line count, new lines) at the first level that matches anything."""
    for level, same in ((EXACT, _same_exact), (TRAILING_WHITESPACE, _same_rstrip)):
        starts = _windows(file_lines, search, same)
        if starts:
            return level, starts, len(search), replace
    shifted = _match_shifted(file_lines, search, replace)
    if shifted:
        return shifted
    trimmed_search, lead, trail = _trim_blank(search)
    if trimmed_search != search and trimmed_search:
        trimmed_replace = _trim_same(replace, lead, trail)
        starts = _windows(file_lines, trimmed_search, _same_rstrip)
        if starts:
            return BLANK_LINES, starts, len(trimmed_search), trimmed_replace
        shifted = _match_shifted(file_lines, trimmed_search, trimmed_replace)
        if shifted:
            return BLANK_LINES, shifted[1], shifted[2], shifted[3]
    return None


def _same_exact(a: str, b: str) -> bool:
    return a == b


def _same_rstrip(a: str, b: str) -> bool:
    return a.rstrip() == b.rstrip()


def _windows(file_lines: list[str], search: list[str], same: Callable[[str, str], bool]) -> list[int]:
    count = len(search)
    return [
        start
        for start in range(len(file_lines) - count + 1)
        if all(same(file_lines[start + k], search[k]) for k in range(count))
    ]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _match_shifted(file_lines: list[str], search: list[str], replace: list[str]) -> _Match | None:
    """Windows where SEARCH matches with one uniform indentation shift; REPLACE re-indented by it."""
    count = len(search)
    hits: list[tuple[int, str, str]] = []  # start, added prefix, removed prefix
    for start in range(len(file_lines) - count + 1):
        shift = _shift(file_lines[start : start + count], search)
        if shift is not None:
            hits.append((start, *shift))
    if not hits:
        return None
    starts = [start for start, _, _ in hits]
    _, added, removed = hits[0]
    return INDENTATION, starts, count, [_reindent(line, added, removed) for line in replace]


def _shift(window: list[str], search: list[str]) -> tuple[str, str] | None:
    added = removed = None
    for have, want in zip(window, search, strict=True):
        if not have.strip() and not want.strip():
            continue
        if have.strip() != want.strip():
            return None
        have_indent, want_indent = _indent(have), _indent(want)
        if have_indent.endswith(want_indent) and len(have_indent) >= len(want_indent):
            shift = (have_indent[: len(have_indent) - len(want_indent)], "")
        elif want_indent.endswith(have_indent):
            shift = ("", want_indent[: len(want_indent) - len(have_indent)])
        else:
            return None
        if added is None:
            added, removed = shift
        elif (added, removed) != shift:
            return None
    if added is None or (added, removed) == ("", ""):
        return None  # blank, or not shifted at all (then an earlier level would have matched)
    return added, removed or ""


def _reindent(line: str, added: str, removed: str) -> str:
    if not line.strip():
        return ""
    if removed:
        if line.startswith(removed):
            return line[len(removed) :]
        return line[min(len(_indent(line)), len(removed)) :]
    return added + line


def _trim_blank(lines: list[str]) -> tuple[list[str], int, int]:
    lead = 0
    while lead < len(lines) and not lines[lead].strip():
        lead += 1
    trail = 0
    while trail < len(lines) - lead and not lines[len(lines) - 1 - trail].strip():
        trail += 1
    return lines[lead : len(lines) - trail], lead, trail


def _trim_same(lines: list[str], lead: int, trail: int) -> list[str]:
    """Drop as many leading/trailing blank lines from REPLACE as were trimmed from SEARCH."""
    start = 0
    while start < lead and start < len(lines) and not lines[start].strip():
        start += 1
    end = len(lines)
    while len(lines) - end < trail and end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _not_found(path: str, lines: _Lines, search: list[str]) -> str:
    message = f"SEARCH text not found in {path}."
    nearest = _nearest(lines.lines, search)
    if nearest is None:
        return message + " The file is empty."
    first, count, ratio = nearest
    closest = f"line is {first + 1}" if count == 1 else f"lines are {first + 1}-{first + count}"
    return (
        f"{message} The closest {closest} ({ratio:.0%} similar):\n"
        f"{lines.numbered(first, count)}\n"
        "  Copy the file's lines exactly into SEARCH (whole lines; indentation and trailing "
        "whitespace may differ), with enough context to match one place."
    )


def _lines_label(first: int, count: int) -> str:
    """1-based label of lines [first, first + count)."""
    return f"line {first + 1}" if count == 1 else f"lines {first + 1}-{first + count}"


def _nearest(file_lines: list[str], search: list[str]) -> tuple[int, int, float] | None:
    """The window of the file most like SEARCH (difflib ratio on stripped lines)."""
    if not file_lines:
        return None
    count = min(len(search), len(file_lines))
    wanted = "\n".join(line.strip() for line in search)
    stripped = [line.strip() for line in file_lines]
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(wanted)
    starts = range(len(file_lines) - count + 1)
    if len(starts) > 2000:  # big file: score only the windows that pass the cheap bound
        scored = []
        for start in starts:
            matcher.set_seq1("\n".join(stripped[start : start + count]))
            scored.append((matcher.quick_ratio(), start))
        starts = [start for _, start in sorted(scored, reverse=True)[:200]]
    best = (-1.0, 0)
    for start in starts:
        matcher.set_seq1("\n".join(stripped[start : start + count]))
        ratio = matcher.ratio()
        if ratio > best[0] or (ratio == best[0] and start < best[1]):
            best = (ratio, start)
    return best[1], count, best[0]


# -- whole functions --------------------------------------------------------------------------

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _apply_function(block: FunctionReplacement, path: str, lines: _Lines) -> Applied:
    try:
        tree = ast.parse(lines.text)
    except SyntaxError as exc:
        raise _Refused(f"{path} does not parse ({exc.msg}, line {exc.lineno}); use SEARCH/REPLACE") from None
    node, qualname = _find_function(tree, block.function, path)
    code_lines, _, _ = _trim_blank(textwrap.dedent(block.code.replace("\r\n", "\n")).split("\n"))
    try:
        new_tree = ast.parse("\n".join(code_lines))
    except SyntaxError as exc:
        raise _Refused(
            f"the code for {block.function} in {path} does not parse: {exc.msg} at its line {exc.lineno}"
        ) from None
    wanted = qualname.rsplit(".", 1)[-1]
    defs = new_tree.body
    if len(defs) != 1 or not isinstance(defs[0], _FunctionNode):
        raise _Refused(
            f"the code for {block.function} in {path} must be exactly one def (of {wanted}), "
            "nothing before or after it; use SEARCH/REPLACE blocks for other changes"
        )
    if defs[0].name != wanted:
        raise _Refused(f"the code for {block.function} in {path} defines {defs[0].name}, not {wanted}")
    def_line = node.lineno - 1
    first = node.decorator_list[0].lineno - 1 if node.decorator_list and defs[0].decorator_list else def_line
    indent = _indent(lines.lines[def_line])
    if lines.lines[def_line][len(indent) :].split(None, 1)[0] not in ("def", "async"):
        raise _Refused(f"{qualname} in {path} does not start its own line; use SEARCH/REPLACE")
    count = (node.end_lineno or node.lineno) - first
    new_lines = [indent + line if line.strip() else "" for line in code_lines]
    start, end = lines.span(first, count)
    text = lines.join(new_lines, first, count)
    original = lines.text.encode("utf-8")[start:end].decode("utf-8")
    edit = Edit(path, start, end, text) if text != original else None
    return Applied(block, edit, FUNCTION, path, first + 1, qualname)


def _functions(tree: ast.AST) -> list[tuple[str, _FunctionNode]]:
    """Every function with its qualified name as localization writes it (outer.<locals>.inner)."""
    found: list[tuple[str, _FunctionNode]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, _FunctionNode):
                found.append((f"{prefix}{child.name}", child))
                walk(child, f"{prefix}{child.name}.<locals>.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def _find_function(tree: ast.AST, name: str, path: str) -> tuple[_FunctionNode, str]:
    wanted = name.strip().removesuffix("()").replace(".<locals>.", ".")
    functions = _functions(tree)
    plain = [(qualname.replace(".<locals>.", "."), qualname, node) for qualname, node in functions]
    exact = [(qualname, node) for short, qualname, node in plain if short == wanted]
    if not exact and "." not in wanted:
        exact = [(qualname, node) for short, qualname, node in plain if short.rsplit(".", 1)[-1] == wanted]
    if len(exact) == 1:
        return exact[0][1], exact[0][0]
    if len(exact) > 1:
        places = ", ".join(f"{qualname} (line {node.lineno})" for qualname, node in exact[:4])
        raise _Refused(f"{path}: {name} names more than one function: {places}; use SEARCH/REPLACE")
    names = [short for short, _, _ in plain]
    close = difflib.get_close_matches(wanted, names, n=5, cutoff=0.4)
    hint = f" Close names: {', '.join(close)}." if close else f" Functions there: {', '.join(names[:12])}."
    raise _Refused(f"{path} has no function {name}.{hint}")


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
