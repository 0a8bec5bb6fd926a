"""Is the shipped patch the reference fix? The heal's files against solution.diff applied to the task.

Every file either patch touches is compared as Python syntax trees (`ast.dump(ast.parse(...))`),
so formatting and comments do not matter but any change of code does; a file that is not Python
(or does not parse) is compared as text. The reference is applied in memory by a strict
unified-diff reader: hunks must match their context exactly (they may sit some lines off, nearest
first, as `patch` allows), so a solution.diff that does not fit the task is an error, not a guess.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from evaluation.bench.tasks import Task

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"
DEV_NULL = "/dev/null"
LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")  # a line with its end; only "\n" ends one, as in a diff


class PatchError(ValueError):
    """The diff is malformed or does not apply to the files it names."""


@dataclass
class Hunk:
    old_start: int  # 1-based; 0 when the hunk adds to an empty file
    old: list[str] = field(default_factory=list)  # lines with their line ends
    new: list[str] = field(default_factory=list)


@dataclass
class FilePatch:
    old: str | None  # repo-relative path before, None for a new file
    new: str | None  # ... after, None for a deleted file
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.new or self.old or ""


def parse_diff(text: str) -> list[FilePatch]:
    """The files of a unified diff (as `git diff` or `diff -u` write it, paths with one prefix
    directory like `a/`, `b/`); `diff --git`, `index` and mode lines are skipped."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    patches: list[FilePatch] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("--- "):
            i += 1
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
            raise PatchError(f"line {i + 1}: `---` without a `+++` line after it")
        patch = FilePatch(_path(lines[i][4:]), _path(lines[i + 1][4:]))
        if patch.old is None and patch.new is None:
            raise PatchError(f"line {i + 1}: both sides are {DEV_NULL}")
        i += 2
        while i < len(lines) and lines[i].startswith("@@"):
            i = _read_hunk(lines, i, patch)
        if not patch.hunks:
            raise PatchError(f"{patch.path}: no hunk")
        patches.append(patch)
    return patches


def _path(header: str) -> str | None:
    name = header.split("\t", 1)[0].strip()
    if name == DEV_NULL:
        return None
    parts = PurePosixPath(name).parts[1:]  # -p1
    if not parts or PurePosixPath(name).is_absolute() or ".." in parts:
        raise PatchError(f"unusable path in the diff: {name!r}")
    return "/".join(parts)


def _read_hunk(lines: list[str], i: int, patch: FilePatch) -> int:
    """Reads the hunk whose header is lines[i] into `patch`; the index after it."""
    match = HUNK.match(lines[i])
    if match is None:
        raise PatchError(f"line {i + 1}: malformed hunk header {lines[i]!r}")
    old_left = int(match[2]) if match[2] is not None else 1
    new_left = int(match[4]) if match[4] is not None else 1
    hunk = Hunk(int(match[1]))
    i += 1
    while old_left or new_left:
        if i >= len(lines):
            raise PatchError(f"{patch.path}: the diff ends inside a hunk")
        line = lines[i] or " "  # an editor may have stripped a context line's lone space
        tag, body = line[0], line[1:] + "\n"
        if tag == " " and old_left and new_left:
            hunk.old.append(body)
            hunk.new.append(body)
            old_left, new_left = old_left - 1, new_left - 1
        elif tag == "-" and old_left:
            hunk.old.append(body)
            old_left -= 1
        elif tag == "+" and new_left:
            hunk.new.append(body)
            new_left -= 1
        else:
            raise PatchError(f"line {i + 1}: unexpected {line!r} in a hunk of {patch.path}")
        i += 1
        if i < len(lines) and lines[i] == NO_NEWLINE:
            _strip_last_newline(hunk, tag)
            i += 1
    patch.hunks.append(hunk)
    return i


def _strip_last_newline(hunk: Hunk, tag: str) -> None:
    for side, touched in ((hunk.old, tag in " -"), (hunk.new, tag in " +")):
        if touched:
            side[-1] = side[-1].removesuffix("\n")


def apply_file(text: str, patch: FilePatch) -> str:
    """`text` with the patch's hunks applied; PatchError when a hunk's context is not there."""
    lines = LINE.findall(text)
    offset = 0
    floor = 0  # hunks apply in order and never overlap
    for hunk in patch.hunks:
        want = max(hunk.old_start - 1, 0) + offset if hunk.old else hunk.old_start + offset
        at = _find(lines, hunk.old, want, floor)
        if at is None:
            raise PatchError(f"{patch.path}: the hunk at line {hunk.old_start} does not match the file")
        lines[at : at + len(hunk.old)] = hunk.new
        offset += (at - want) + len(hunk.new) - len(hunk.old)
        floor = at + len(hunk.new)
    return "".join(lines)


def _find(lines: list[str], old: list[str], want: int, floor: int) -> int | None:
    """Where `old` sits in `lines`: at `want`, else the nearest place at or after `floor`."""
    last = len(lines) - len(old)
    for distance in range(max(want - floor, last - want, 0) + 1):
        for at in (want - distance, want + distance):
            if floor <= at <= last and lines[at : at + len(old)] == old:
                return at
    return None


def reference_texts(repo: Path, diff_text: str) -> dict[str, str | None]:
    """Repo-relative path -> the file's text after the reference fix (None: the fix deletes it),
    for every file the diff touches."""
    texts: dict[str, str | None] = {}
    for patch in parse_diff(diff_text):
        if patch.old is not None and not (repo / patch.old).is_file():
            raise PatchError(f"{patch.old}: the diff changes a file the task does not have")
        base = (repo / patch.old).read_text(encoding="utf-8") if patch.old is not None else ""
        if patch.old is not None and patch.new != patch.old:
            texts[patch.old] = None  # renamed or deleted
        if patch.new is not None:
            texts[patch.new] = apply_file(base, patch)
    return texts


def same_code(path: str, a: str | None, b: str | None) -> bool:
    """One file's two versions are the same program: equal syntax trees for Python that parses,
    equal text otherwise; None (the file does not exist) equals only None."""
    if a is None or b is None:
        return a is b
    if path.endswith((".py", ".pyi")):
        try:
            return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
        except (SyntaxError, ValueError):  # ValueError: a NUL byte
            pass
    return a == b


def matches_reference(repo: Path, diff_text: str, changes: Mapping[str, str]) -> bool:
    """Whether `changes` (repo-relative path -> new text) is the fix `diff_text` makes to `repo`:
    for every file either touches, the two versions are the same code (`same_code`). A file only
    one of them touches is compared with the base, so an extra real edit makes them differ."""
    reference = reference_texts(repo, diff_text)
    for path in sorted(set(reference) | set(changes)):
        base_file = repo / path
        base = base_file.read_text(encoding="utf-8") if base_file.is_file() else None
        if not same_code(path, changes.get(path, base), reference.get(path, base)):
            return False
    return True


MODULE_LEVEL = "<module>"


def function_trees(text: str) -> dict[str, str] | None:
    """Qualified name -> syntax tree dump of every function and method in `text`, plus
    `<module>` and `Class.<body>` for the statements outside any function; None if it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    trees: dict[str, str] = {}
    _collect(tree.body, "", MODULE_LEVEL, trees)
    return trees


def _collect(body: list[ast.stmt], prefix: str, rest_name: str, trees: dict[str, str]) -> None:
    rest = []
    for node in _without_docstring_body(body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            trees[prefix + node.name] = ast.dump(_without_docstring(node))
        elif isinstance(node, ast.ClassDef):
            name = prefix + node.name
            _collect(node.body, name + ".", name + ".<body>", trees)
            trees[name + ".<class>"] = ast.dump(ast.ClassDef(
                name=node.name, bases=node.bases, keywords=node.keywords, body=[],
                decorator_list=node.decorator_list, type_params=getattr(node, "type_params", []),
            ))  # fmt: skip
        elif not _is_version(node):  # every release bumps it; it is no part of a fix
            rest.append(node)
    trees[rest_name] = ast.dump(ast.Module(body=rest, type_ignores=[]))


def _without_docstring_body(body: list[ast.stmt]) -> list[ast.stmt]:
    """A docstring documents the code; a release that adds one changed no behaviour."""
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return body[1:]
    return body


def _without_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
    copy = ast.FunctionDef if isinstance(node, ast.FunctionDef) else ast.AsyncFunctionDef
    return copy(
        name=node.name, args=node.args, body=_without_docstring_body(node.body) or [ast.Pass()],
        decorator_list=node.decorator_list, returns=node.returns, type_comment=node.type_comment,
        type_params=getattr(node, "type_params", []),
    )  # fmt: skip


def _is_version(node: ast.stmt) -> bool:
    targets = (
        node.targets
        if isinstance(node, ast.Assign)
        else [node.target]
        if isinstance(node, ast.AnnAssign)
        else []
    )
    return any(
        isinstance(t, ast.Name) and t.id in ("__version__", "version_info", "VERSION") for t in targets
    )


def matches_reference_functions(
    repo: Path, diff_text: str, changes: Mapping[str, str], ignore: tuple[str, ...] = ()
) -> bool:
    """Whether every function either patch touches is the same code in `changes` as in the fixed
    release (`diff_text` applied to `repo`). A release carries more than the one fix, so functions
    only the release touched and `ignore` names (`path::qualname` or `qualname`) are not required."""
    reference = reference_texts(repo, diff_text)
    for path in sorted(set(reference) | set(changes)):
        base_file = repo / path
        base = base_file.read_text(encoding="utf-8") if base_file.is_file() else None
        healed, fixed = changes.get(path, base), reference.get(path, base)
        trees = [
            function_trees(t) if t is not None and path.endswith(".py") else None
            for t in (base, healed, fixed)
        ]
        if any(t is None for t in trees):
            if not same_code(path, healed, fixed) and path in changes:
                return False
            continue
        before, after_heal, after_fix = trees
        assert before is not None and after_heal is not None and after_fix is not None
        by_heal = {f for f in before.keys() | after_heal.keys() if before.get(f) != after_heal.get(f)}
        by_fix = {f for f in before.keys() | after_fix.keys() if before.get(f) != after_fix.get(f)}
        by_fix -= {f for f in by_fix if f in ignore or f"{path}::{f}" in ignore}
        if any(after_heal.get(f) != after_fix.get(f) for f in by_heal | by_fix):
            return False
    return True


def task_matches_reference(task: Task, changes: Mapping[str, str]) -> bool | None:
    """`matches_reference` (or, for a real bug, `matches_reference_functions`) for a task's
    solution.diff; None when the task has none or it does not apply (check_tasks.py reports that)."""
    diff = task.folder / "solution.diff"
    if not diff.is_file():
        return None
    try:
        text = diff.read_text(encoding="utf-8")
        if task.reference_mode == "functions":
            return matches_reference_functions(task.repo, text, changes, task.reference_ignore)
        return matches_reference(task.repo, text, changes)
    except (PatchError, UnicodeDecodeError):
        return None
