"""Bypass review: does a patch only skip the failing path instead of changing the computation?

    bypassed_functions(base_texts, patched_texts, crashed_through) -> tuple[str, ...]
        # "path: qualname" of each changed function, or ()

`if not x: continue`, `if not x: return y`, a bare early `return`, or an `if` wrapped around
statements that were there before: each makes a failing test pass by not running the code it
checks. Sometimes that is the fix (a missing guard at a crash site); often the bug lives in the
computation that is now skipped. The choice of a round ranks such patches below one that changes
the computation and passes as well, and the pull request says so when only a bypass was found.

Deleting a statement the failing test crashed through (its traceback passes a line of it) skips
the failing path too: the test stops failing because the code it failed in no longer runs
(`self._trim()` -> `pass` where `_trim` raised). A statement deleted elsewhere changes the
computation (a stray `total += 1`).

A patch is a bypass when every function it changed changed only that way; any other edit (an
operator, a value, a call, a statement deleted off the failing path, a module-level change) makes
it a change of the computation.
"""

from __future__ import annotations

import ast
import copy
import difflib
from collections.abc import Mapping

from selfheal.agent.repair.overfit import scopes

EXITS = (ast.Return, ast.Continue, ast.Break, ast.Pass)
# compound statements whose header must stay the same for their blocks to be compared
BLOCKS = {
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "orelse", "finalbody"),
}
BYPASS, COMPUTATION, SAME = "bypass", "computation", "same"


def bypassed_functions(
    base_texts: Mapping[str, str],
    patched_texts: Mapping[str, str],
    crashed_through: Mapping[str, frozenset[int]] | None = None,
) -> tuple[str, ...]:
    """The changed functions, when every change of the patch only skips code; () otherwise.
    `crashed_through`: per file, the lines of the base text the failing tests' tracebacks pass
    through (Localization.traceback_lines)."""
    found: list[str] = []
    for path, patched in sorted(patched_texts.items()):
        base = base_texts.get(path)
        if base is None or base == patched:
            continue
        if not path.endswith(".py"):
            return ()
        try:
            before, after = ast.parse(base), ast.parse(patched)
        except SyntaxError:
            return ()
        old = dict(scopes(before))
        crashed = (crashed_through or {}).get(path, frozenset())
        for name, scope in scopes(after):
            previous = old.pop(name, None)
            if previous is None:
                return ()  # a new function is new computation
            if ast.dump(previous) == ast.dump(scope):
                continue
            if name == "module level" or _block_change(_body(previous), _body(scope), crashed) != BYPASS:
                return ()
            found.append(f"{path}: {name}")
        if old:
            return ()  # a function removed
    return tuple(found)


def changed_functions(
    base_texts: Mapping[str, str], patched_texts: Mapping[str, str]
) -> list[tuple[str, str]]:
    """(path, qualname) of each function whose code differs between the two texts of a file."""
    found: list[tuple[str, str]] = []
    for path, patched in sorted(patched_texts.items()):
        base = base_texts.get(path)
        if base is None or base == patched or not path.endswith(".py"):
            continue
        try:
            old = dict(scopes(ast.parse(base)))
            new = scopes(ast.parse(patched))
        except SyntaxError:
            continue
        for name, scope in new:
            previous = old.get(name)
            if name != "module level" and previous is not None and ast.dump(previous) != ast.dump(scope):
                found.append((path, name))
    return found


def _body(scope: ast.AST) -> list[ast.stmt]:
    body = list(getattr(scope, "body", []))
    # nested definitions are scopes of their own (compared there), not statements of this one
    return [s for s in body if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]


def _block_change(
    before: list[ast.stmt], after: list[ast.stmt], crashed: frozenset[int] = frozenset()
) -> str:
    """SAME, BYPASS (only exits, exit guards or wrapping guards added, or statements the failing
    tests crashed through deleted) or COMPUTATION."""
    old = [ast.dump(s) for s in before]
    new = [ast.dump(s) for s in after]
    if old == new:
        return SAME
    change = SAME
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "insert" and all(_skips(s) for s in after[j1:j2]):
            change = BYPASS
            continue
        deleted = op == "delete" or (op == "replace" and all(isinstance(s, ast.Pass) for s in after[j1:j2]))
        if deleted and all(_crashed_in(s, crashed) for s in before[i1:i2]):
            change = BYPASS
            continue
        if op == "replace":
            kind = _replaced(before[i1:i2], after[j1:j2], crashed)
            if kind == COMPUTATION:
                return COMPUTATION
            change = BYPASS if kind == BYPASS else change
            continue
        return COMPUTATION
    return change


def _replaced(before: list[ast.stmt], after: list[ast.stmt], crashed: frozenset[int]) -> str:
    # one `if` around the statements that were there: a wrapping guard (an else branch would be new code)
    if len(after) == 1 and isinstance(after[0], ast.If) and not after[0].orelse:
        inner = _block_change(before, after[0].body, crashed)
        if inner in (SAME, BYPASS):
            return BYPASS
    # the same compound statements with the same headers: compare their blocks
    if len(before) != len(after):
        # exits inserted beside changed statements: only a bypass if the rest is a bypass too
        return COMPUTATION
    change = SAME
    for old, new in zip(before, after, strict=True):
        fields = BLOCKS.get(type(old))
        if fields is None or type(new) is not type(old) or _header(old) != _header(new):
            return COMPUTATION
        for field in fields:
            kind = _block_change(getattr(old, field), getattr(new, field), crashed)
            if kind == COMPUTATION:
                return COMPUTATION
            change = BYPASS if kind == BYPASS else change
        if isinstance(old, ast.Try) and _dumps(old.handlers) != _dumps(new.handlers):
            return COMPUTATION
    return change


def _crashed_in(statement: ast.stmt, crashed: frozenset[int]) -> bool:
    """Whether a failing test's traceback passes a line of `statement` (of the base text)."""
    end = getattr(statement, "end_lineno", None) or statement.lineno
    return any(statement.lineno <= line <= end for line in crashed)


def _header(node: ast.stmt) -> str:
    """The statement without its blocks."""
    shell = copy.copy(node)  # shallow: emptying the copy's blocks leaves the node as it was
    for name in ("body", "orelse", "finalbody", "handlers"):
        if hasattr(shell, name):
            setattr(shell, name, [])
    return ast.dump(shell)


def _dumps(nodes: list) -> list[str]:
    return [ast.dump(n) for n in nodes]


def _skips(statement: ast.stmt) -> bool:
    """An exit, or an `if` (no else) whose branch only exits."""
    if isinstance(statement, EXITS):
        return True
    return (
        isinstance(statement, ast.If)
        and not statement.orelse
        and all(isinstance(s, EXITS) for s in statement.body)
    )
