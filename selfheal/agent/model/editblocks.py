"""A model's edit blocks: their plain-text format, and reading an answer into `Block`s.

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

Where one block lands in its file is editmatch.py's concern; the answer applied as a whole, all or
nothing, is editapply.py's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

FORMAT_REMINDER = (
    "Format: the file path on its own line, then\n<<<<<<< SEARCH\n(lines copied exactly from the file)\n"
    "=======\n(the new lines)\n>>>>>>> REPLACE\n"
    "or, to replace a whole function,\n<<<<<<< FUNCTION name_or_Class.method\n(the complete new def)\n"
    ">>>>>>> REPLACE"
)


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
    except RecursionError:  # brackets nested past the decoder's limit
        return ParsedBlocks((), ("no edit blocks found in your answer (its JSON is nested too deeply)",))
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
