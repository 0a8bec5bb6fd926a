"""The debugger's tools that read the project and the heal's state; no project code runs.

    inspect_function  read_file  search_code  diff_iterations  localization

They read the project's source texts (read_file through the sandbox session, which follows no
link), the SBFL ranking and the repair attempts so far. A path a model gives is normalised and
confined to the workspace (`confine_path`, which run_tests' ids go through too). A missing file or
a runaway regex is an `Observation` with `ok=False`, never an exception. read_file, shortened for
a small model's context, keeps the file's outline and the line numbers of what it left out.
"""

from __future__ import annotations

import difflib
import json
import os
import posixpath
import re
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from selfheal.agent.localize.codeindex import CodeBase, CodeIndex, Definition
from selfheal.agent.localize.spectrum import Localization
from selfheal.agent.model.history import History
from selfheal.agent.model.llm.base import ToolSpec
from selfheal.agent.model.textfit import fit_source
from selfheal.agent.model.tokencount import CountFn
from selfheal.agent.model.toolbox import Observation
from selfheal.sandbox import Session

MAX_FILE_LINES = 400  # lines of one read_file answer
MAX_SOURCE_LINES = 120  # lines of one definition's source in inspect_function
MAX_CALLERS = 25
MAX_SEARCH_RESULTS = 50
REGEX_TIMEOUT = 10.0


# -- confinement of model-given values --------------------------------------------------------
MAX_PATH_CHARS = 1024  # longer is no path of a project (Linux allows 4096 bytes, 255 per name)
MAX_NAME_CHARS = 255


def confine_path(path: str) -> tuple[str | None, str]:
    """(normalised repo-relative path, "") or (None, why it is refused, written for the model).

    Refused: empty; a NUL byte or a line break; longer than MAX_PATH_CHARS (or a name longer than
    MAX_NAME_CHARS); absolute (`/`, `\\`, `~`, a drive letter); outside the project after
    normalisation (`..`); inside `.git/`, selfheal's own snapshot of the repository."""
    malformed = malformed_path(path)
    if malformed:
        return None, malformed
    shown = _shown(path)
    if path.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", path):
        return None, f"refused: {shown!r} is absolute; give a path relative to the project root"
    normal = posixpath.normpath(path.replace("\\", "/"))
    if normal == "." or normal == ".." or normal.startswith("../"):
        return None, f"refused: {shown!r} is outside the project; give a path inside it, e.g. pkg/core.py"
    if ".git" in normal.split("/"):
        return None, (
            f"refused: {shown!r} is inside .git/, selfheal's own snapshot of the repository, not a file "
            "of the project; read or change the project's source files instead"
        )
    return normal, ""


def malformed_path(path: str) -> str:
    """Why `path` is no path at all (empty, a NUL byte or a line break, absurdly long), or ""."""
    if not path:
        return "a path must not be empty; give a path relative to the project root, e.g. pkg/core.py"
    if "\0" in path or "\n" in path or "\r" in path:
        return (
            "refused: the path contains a NUL byte or a line break; a path is a single line of plain "
            "text relative to the project root, e.g. pkg/core.py"
        )
    if re.search("[\ud800-\udfff]", path):
        return "refused: the path holds a lone surrogate, which is not valid Unicode; give the plain path"
    if len(path) > MAX_PATH_CHARS or any(len(part) > MAX_NAME_CHARS for part in re.split(r"[/\\]", path)):
        return (
            f"refused: the path is too long ({len(path)} characters: {_shown(path)!r}); give the file's "
            "path relative to the project root, e.g. pkg/core.py"
        )
    return ""


def _shown(path: str) -> str:
    return path if len(path) <= 120 else path[:60] + "…" + path[-40:]


# -- inspect_function -------------------------------------------------------------------------
class InspectFunction:
    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self.spec = ToolSpec(
            name="inspect_function",
            description=(
                "Look up a function, method or class in the project: its signature, docstring, source "
                "with line numbers, and the places in the project that call it (matched by name)."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 300,
                        "description": "'func', 'Class.method' or 'Class'",
                    },
                    "file": {
                        "type": "string",
                        "minLength": 1,
                        "description": "only look in this file (repo-relative), when the name is ambiguous",
                    },
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        )

    def run(self, arguments: dict[str, Any]) -> Observation:
        name = arguments["name"]
        file = arguments.get("file")
        if file is not None:
            file, why = confine_path(file)
            if file is None:
                return Observation(why, ok=False)
            if file not in self.index.texts:
                return Observation(f"{arguments['file']} is not a Python file of the project", ok=False)
        found = self.index.find(name, file)
        if not found:
            similar = self.index.similar(name)
            text = f"no function, method or class named `{name}`" + (f" in {file}" if file else "")
            if similar:
                text += f"; similar names: {', '.join(similar)}"
            if self.index.syntax_errors:
                text += (
                    f" (files that do not parse were skipped: {', '.join(sorted(self.index.syntax_errors))})"
                )
            return Observation(text, ok=False)
        parts = [self._render(d) for d in found[:2]]
        if len(found) > 2:
            others = ", ".join(f"{d.qualname} ({d.file}:{d.def_line})" for d in found[2:12])
            parts.append(f"{len(found) - 2} more named `{name}`: {others}; pass `file` to choose")
        data = {"matches": [{"file": d.file, "qualname": d.qualname, "line": d.def_line} for d in found]}
        return Observation("\n\n".join(parts), data=data)

    def _render(self, d: Definition) -> str:
        index = self.index
        flag = " [read-only]" if d.readonly else ""
        lines = [f"{d.kind} {d.qualname} in {d.where}{flag}", *d.decorators, d.signature]
        if d.docstring:
            doc = d.docstring.splitlines()
            lines.append("docstring:")
            lines += [f"    {ln}" for ln in doc[:15]]
            if len(doc) > 15:
                lines.append(f"    … {len(doc) - 15} more lines")
        if d.kind == "class":
            methods = [
                m for m in index.definitions if m.file == d.file and m.qualname.startswith(f"{d.qualname}.")
            ]
            methods = [m for m in methods if "." not in m.qualname[len(d.qualname) + 1 :]]
            if methods:
                lines.append("methods: " + ", ".join(f"{m.name} (line {m.def_line})" for m in methods))
        limit = 60 if d.kind == "class" else MAX_SOURCE_LINES
        end = min(d.end_line, d.line + limit - 1)
        lines.append("source:")
        lines += index.numbered(d.file, d.line, end)
        if end < d.end_line:
            lines.append(f"… {d.end_line - end} more lines (read_file {d.file} from line {end + 1})")
        callers = index.callers(d)
        if not callers:
            lines.append("callers: none found in the project (it may be called dynamically, or not at all)")
        else:
            note = ""
            if index.same_name(d):
                note = f"; other definitions are also named `{d.name}`, so some calls may be theirs"
            lines.append(f"callers ({len(callers)}, matched by name `{d.name}`{note}):")
            for site in callers[:MAX_CALLERS]:
                test = " [test]" if site.readonly else ""
                lines.append(f"  {site.file}:{site.line} in {site.caller}{test}: {site.text}")
            if len(callers) > MAX_CALLERS:
                lines.append(f"  … {len(callers) - MAX_CALLERS} more")
        return "\n".join(lines)


# -- read_file --------------------------------------------------------------------------------
class ReadFile:
    def __init__(self, session: Session, codebase: CodeBase | None = None) -> None:
        self.session = session
        self.codebase = codebase
        self.spec = ToolSpec(
            name="read_file",
            description=(
                f"Read a file of the project with line numbers (at most {MAX_FILE_LINES} lines per "
                "call; give start_line/end_line for a range). Paths are relative to the project root."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "minLength": 1, "description": "e.g. 'pkg/core.py'"},
                    "start_line": {"type": "integer", "minimum": 1, "description": "first line (1-based)"},
                    "end_line": {"type": "integer", "minimum": 1, "description": "last line, included"},
                },
                "required": ["path"],
                "additionalProperties": False,
            },
        )

    def run(self, arguments: dict[str, Any]) -> Observation:
        path, why = confine_path(arguments["path"])
        if path is None:
            return Observation(why, ok=False)
        raw = self.session.read_file(path)  # None for a link too: the session follows none
        if raw is None:
            return Observation(self._not_found(path), ok=False)
        if b"\0" in raw[:8192]:
            return Observation(f"{path} is a binary file ({len(raw)} bytes); not shown", ok=False)
        lines = raw.decode("utf-8", "replace").splitlines()
        total = len(lines)
        start = int(arguments.get("start_line", 1))  # JSON Schema calls 3.0 an integer
        end = int(arguments.get("end_line", total))
        if total == 0:
            return Observation(f"{path} is empty", data={"path": path, "lines": 0})
        if start > total:
            return Observation(f"{path} has only {total} lines; start_line {start} is past its end", ok=False)
        if end < start:
            return Observation(f"end_line {end} is before start_line {start}", ok=False)
        end = min(end, total, start + MAX_FILE_LINES - 1)
        width = len(str(end))
        flag = ""
        if self.codebase is not None and path in self.codebase.readonly:
            flag = " [read-only: repairs may not change it]"
        body = [f"{n:>{width}} | {lines[n - 1]}" for n in range(start, end + 1)]
        head = f"{path} ({total} lines), lines {start}-{end}{flag}"
        tail = []
        if end < min(int(arguments.get("end_line", total)), total):
            tail = [f"… more: read_file {path} with start_line {end + 1}"]
        data = {"path": path, "lines": total, "start_line": start, "end_line": end}

        def shorten(max_tokens: int, count: CountFn) -> str:
            note = "(shortened for the context: read a narrower range with start_line/end_line)"
            room = max_tokens - count("\n".join([head, *tail, note])) - 4
            source = "\n".join(lines[start - 1 : end])
            fitted = fit_source(source, max(room, 0), first_line=start, numbered=True, count=count)
            return "\n".join([head, *([fitted] if fitted else []), *tail, note])

        return Observation("\n".join([head, *body, *tail]), data=data, shorten=shorten)

    def _not_found(self, path: str) -> str:
        text = f"no such file: {path}"
        if self.codebase is None:
            return text
        files = list(self.codebase.files)
        inside = [f for f in files if f.startswith(path.rstrip("/") + "/")]
        if inside:
            shown = ", ".join(inside[:30]) + (f" and {len(inside) - 30} more" if len(inside) > 30 else "")
            return f"{path} is a folder; its Python files: {shown}"
        close = difflib.get_close_matches(path, files, n=3, cutoff=0.75)
        return text + (f"; did you mean: {', '.join(close)}" if close else "")


# -- search_code ------------------------------------------------------------------------------
REGEX_SEARCH = """
import json, re, sys
job = json.load(sys.stdin)
pattern = re.compile(job["pattern"], re.IGNORECASE if job["ignore_case"] else 0)
found, total = [], 0
for path, text in job["files"]:
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.search(line):
            total += 1
            if len(found) < job["limit"]:
                found.append([path, number])
json.dump({"found": found, "total": total}, sys.stdout)
"""


class SearchCode:
    def __init__(self, codebase: CodeBase, *, regex_timeout: float = REGEX_TIMEOUT) -> None:
        self.codebase = codebase
        self.regex_timeout = regex_timeout
        self.spec = ToolSpec(
            name="search_code",
            description=(
                "Search the project's Python files (sources first, then tests, which are read-only) for "
                "a literal string or a Python regular expression, line by line. Returns file:line: text."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "minLength": 1, "maxLength": 300},
                    "regex": {
                        "type": "boolean",
                        "default": False,
                        "description": "treat pattern as a Python regex (default: a literal string)",
                    },
                    "ignore_case": {"type": "boolean", "default": False},
                    "max_results": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_SEARCH_RESULTS,
                        "default": 20,
                    },
                },
                "required": ["pattern"],
                "additionalProperties": False,
            },
        )

    def run(self, arguments: dict[str, Any]) -> Observation:
        pattern = arguments["pattern"]
        regex = arguments.get("regex", False)
        ignore_case = arguments.get("ignore_case", False)
        limit = int(arguments.get("max_results", 20))
        files = self.codebase.files
        if regex:
            try:
                re.compile(pattern)
            except re.error as exc:
                return Observation(f"invalid regular expression: {exc}", ok=False)
            found, total, problem = _regex_search(
                pattern, ignore_case, list(files.items()), limit, self.regex_timeout
            )
            if problem:
                return Observation(problem, ok=False)
        else:
            needle = pattern.lower() if ignore_case else pattern
            found, total = [], 0
            for path, text in files.items():
                for number, line in enumerate(text.splitlines(), 1):
                    if needle in (line.lower() if ignore_case else line):
                        total += 1
                        if len(found) < limit:
                            found.append((path, number))
        kind = "regex" if regex else "string"
        if not found:
            return Observation(f"no match for {kind} {pattern!r} in {len(files)} files", data={"matches": []})
        shown = f"showing the first {len(found)}" if total > len(found) else "all shown"
        lines = [f"{total} matching lines for {kind} {pattern!r} ({shown}; [test] = read-only)"]
        for path, number in found:
            text = files[path].splitlines()[number - 1].strip()
            text = text if len(text) <= 200 else text[:199] + "…"
            flag = " [test]" if self.codebase.is_readonly(path) else ""
            lines.append(f"{path}:{number}{flag}: {text}")
        data = {"matches": [{"file": p, "line": n} for p, n in found], "total": total}
        return Observation("\n".join(lines), data=data)


def _regex_search(
    pattern: str, ignore_case: bool, files: list[tuple[str, str]], limit: int, timeout: float
) -> tuple[list[tuple[str, int]], int, str]:
    """A model's regex runs in a child process with a time limit: a catastrophic pattern costs
    seconds, not the heal. The child only reads the texts it is sent; no project code runs."""
    job = json.dumps({"pattern": pattern, "ignore_case": ignore_case, "files": files, "limit": limit})
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", REGEX_SEARCH],
            input=job.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
    except subprocess.TimeoutExpired:
        return (
            [],
            0,
            (
                f"the regex ran longer than {timeout:g}s and was stopped (nested repetition?); "
                "simplify it or search for a literal string"
            ),
        )
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return [], 0, f"the regex search failed: {said[-1] if said else done.returncode}"
    answer = json.loads(done.stdout)
    return [(p, n) for p, n in answer["found"]], answer["total"], ""


# -- diff_iterations --------------------------------------------------------------------------
class DiffIterations:
    def __init__(self, history: History) -> None:
        self.history = history
        self.spec = ToolSpec(
            name="diff_iterations",
            description=(
                "What changed between the repair attempts so far and how the test outcomes moved: "
                "target tests fixed / still failing, and passing tests broken, per attempt."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "last": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 10,
                        "default": 4,
                        "description": "how many of the latest attempts to show",
                    },
                },
                "additionalProperties": False,
            },
        )

    def run(self, arguments: dict[str, Any]) -> Observation:
        return Observation(
            self.history.render(int(arguments.get("last", 4))), data={"attempts": len(self.history)}
        )


# -- localization -----------------------------------------------------------------------------
class ShowLocalization:
    def __init__(self, localization: Localization, sources: Mapping[str, str]) -> None:
        self.localization = localization
        self.sources = sources
        self.spec = ToolSpec(
            name="localization",
            description=(
                "The suspicious lines ranked by spectrum-based fault localization (Ochiai over which "
                "tests ran each line) combined with the failing tests' traceback frames: file:line, "
                "score, enclosing function and the line itself."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 10},
                },
                "additionalProperties": False,
            },
        )

    def run(self, arguments: dict[str, Any]) -> Observation:
        limit = int(arguments.get("limit", 10))
        found = self.localization
        if not found.lines:
            return Observation(
                "no suspicious line: the failing tests execute no project source file", ok=False
            )
        basis = "coverage and tracebacks" if found.had_coverage else "traceback frames only (no coverage)"
        lines = [
            f"{len(found.lines)} suspicious lines, ranked by {basis}; the top {min(limit, len(found.lines))}:"
        ]
        for rank, s in enumerate(found.lines[:limit], 1):
            text = self.sources.get(s.file, "").splitlines()
            code = text[s.line - 1].strip() if 0 < s.line <= len(text) else ""
            lines.append(
                f"{rank:>2}. {s.file}:{s.line} score {s.score:.2f} "
                f"(sbfl {s.ochiai:.2f}, traceback {s.traceback:.2f}) in {s.function}: {code}"
            )
        if found.targets:
            targets = ", ".join(
                f"{t.function} ({t.file}:{t.line}, {t.suspiciousness:.2f})" for t in found.targets[:5]
            )
            lines.append(f"suspicious functions: {targets}")
        data = {"lines": [{"file": s.file, "line": s.line, "score": s.score} for s in found.lines[:limit]]}
        return Observation("\n".join(lines), data=data)
