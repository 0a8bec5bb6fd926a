"""Where one edit block lands in one file: graded SEARCH matching, whole-function replacement.

Matching, graded, each SEARCH against the ORIGINAL file (not against earlier blocks' results):
`exact` (whole lines, any line ending), `trailing_whitespace`, `indentation` (the block is
uniformly shifted; its replacement is shifted by the same amount), `blank_lines` (leading and
trailing blank lines of SEARCH trimmed, then the tolerant levels again). A SEARCH that matches more
than once at the first level that finds it is refused with the line numbers.

A FUNCTION block replaces the function it names, found by its name as localization writes it
(editblocks.py says what the block may contain). A block that cannot land raises `Refused`, with
a message for the model: for a missing SEARCH, the nearest lines of the file with line numbers.
"""

from __future__ import annotations

import ast
import difflib
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from selfheal.agent.localize.spectrum import FunctionIndex
from selfheal.agent.model.editblocks import Block, FunctionReplacement, SearchReplace
from selfheal.agent.repair.edits import Edit

EXACT, TRAILING_WHITESPACE, INDENTATION, BLANK_LINES, FUNCTION = (
    "exact",
    "trailing_whitespace",
    "indentation",
    "blank_lines",
    "function",
)
NEAREST_MAX_LINES = 12


@dataclass(frozen=True)
class Applied:
    """How one block landed."""

    block: Block
    edit: Edit | None  # None: the block changes nothing
    match: str  # exact | trailing_whitespace | indentation | blank_lines | function
    file: str  # the source path it resolved to
    line: int  # first line of the original it replaces (1-based)
    function: str  # the enclosing function there, as localization names it


class FileLines:
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


class Refused(Exception):
    """One block cannot apply; the message is for the model."""


# -- SEARCH/REPLACE ---------------------------------------------------------------------------


def _split(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def apply_search(block: SearchReplace, path: str, lines: FileLines) -> Applied:
    """The one place of `lines` that SEARCH matches, at the first level that matches anything."""
    search, replace = _split(block.search), _split(block.replace)
    if not any(line.strip() for line in search):
        raise Refused(f"{path}: SEARCH is empty; copy the lines to change from the file into it")
    found = _match(lines.lines, search, replace)
    if found is None:
        raise Refused(_not_found(path, lines, search))
    level, starts, count, new_lines = found
    if len(starts) > 1:
        places = " and ".join(_lines_label(s, count) for s in starts[:2])
        more = f" (and {len(starts) - 2} more)" if len(starts) > 2 else ""
        raise Refused(
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


def _not_found(path: str, lines: FileLines, search: list[str]) -> str:
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


def apply_function(block: FunctionReplacement, path: str, lines: FileLines) -> Applied:
    """The code in place of the function it names, re-indented to that function's `def`."""
    try:
        tree = ast.parse(lines.text)
    except SyntaxError as exc:
        raise Refused(f"{path} does not parse ({exc.msg}, line {exc.lineno}); use SEARCH/REPLACE") from None
    node, qualname = _find_function(tree, block.function, path)
    code_lines, _, _ = _trim_blank(textwrap.dedent(block.code.replace("\r\n", "\n")).split("\n"))
    try:
        new_tree = ast.parse("\n".join(code_lines))
    except SyntaxError as exc:
        raise Refused(
            f"the code for {block.function} in {path} does not parse: {exc.msg} at its line {exc.lineno}"
        ) from None
    wanted = qualname.rsplit(".", 1)[-1]
    defs = new_tree.body
    if len(defs) != 1 or not isinstance(defs[0], _FunctionNode):
        raise Refused(
            f"the code for {block.function} in {path} must be exactly one def (of {wanted}), "
            "nothing before or after it; use SEARCH/REPLACE blocks for other changes"
        )
    if defs[0].name != wanted:
        raise Refused(f"the code for {block.function} in {path} defines {defs[0].name}, not {wanted}")
    def_line = node.lineno - 1
    first = node.decorator_list[0].lineno - 1 if node.decorator_list and defs[0].decorator_list else def_line
    indent = _indent(lines.lines[def_line])
    if lines.lines[def_line][len(indent) :].split(None, 1)[0] not in ("def", "async"):
        raise Refused(f"{qualname} in {path} does not start its own line; use SEARCH/REPLACE")
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
        raise Refused(f"{path}: {name} names more than one function: {places}; use SEARCH/REPLACE")
    names = [short for short, _, _ in plain]
    close = difflib.get_close_matches(wanted, names, n=5, cutoff=0.4)
    hint = f" Close names: {', '.join(close)}." if close else f" Functions there: {', '.join(names[:12])}."
    raise Refused(f"{path} has no function {name}.{hint}")
