"""Where a value is set and where it is read: two plausible patches that correct the same value,
one at its assignment and one at a later statement that reads it.

    reads_what_is_assigned(text, assigned_at=11, read_at=12) -> bool

True when line `assigned_at` holds an assignment to a name or an attribute chain
(`self.level = ...`, `total += ...`), line `read_at` holds a later statement of the same function,
and that statement reads the same name or chain (`return self.level`). The search then prefers
the correction at the assignment (agent/preference.py): every later reader sees the corrected
value, where a correction at one reader leaves the others, and the object's state, as they were.
"""

from __future__ import annotations

import ast

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (*FUNCTIONS, ast.ClassDef)
SIMPLE_TARGETS = (ast.Name, ast.Attribute)


def reads_what_is_assigned(text: str, *, assigned_at: int, read_at: int) -> bool:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    function = _innermost_function(tree, assigned_at)
    if function is None or function is not _innermost_function(tree, read_at):
        return False
    setter = _statement_at(function, assigned_at)
    reader = _statement_at(function, read_at)
    if setter is None or reader is None or reader.lineno <= (setter.end_lineno or setter.lineno):
        return False
    target = _assigned(setter)
    if target is None:
        return False
    return any(
        isinstance(node, SIMPLE_TARGETS) and isinstance(node.ctx, ast.Load) and ast.unparse(node) == target
        for part in _read_parts(reader)
        for node in ast.walk(part)
    )


def _read_parts(statement: ast.stmt) -> list[ast.AST]:
    """What the statement's own line reads: the whole of a simple statement, a block's header."""
    if isinstance(statement, (ast.If, ast.While)):
        return [statement.test]
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return [statement.iter]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [item.context_expr for item in statement.items]
    if isinstance(statement, ast.Match):
        return [statement.subject]
    if hasattr(statement, "body"):
        return []  # try, and anything newer: the header reads nothing
    return [statement]


def _assigned(statement: ast.stmt) -> str | None:
    """The one name or attribute chain the statement assigns, spelled as the source would."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
        target = statement.target
    else:
        return None
    if not isinstance(target, SIMPLE_TARGETS) or not _chain(target):
        return None
    return ast.unparse(target)


def _chain(node: ast.expr) -> bool:
    """`name`, `self.level`, `a.b.c`: no call, subscript or other expression along the way."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _innermost_function(tree: ast.AST, line: int) -> ast.AST | None:
    found = None
    for node in ast.walk(tree):
        spans = isinstance(node, FUNCTIONS) and node.lineno <= line <= (node.end_lineno or node.lineno)
        if spans and (found is None or node.lineno >= found.lineno):
            found = node
    return found


def _statement_at(function: ast.AST, line: int) -> ast.stmt | None:
    """The simple statement (not a block) of the function's own body that spans the line; for a
    block's header line (`if`, `for`, `while`), the block itself, whose header reads values too."""
    best: ast.stmt | None = None
    for node in ast.walk(function):
        if node is function or not isinstance(node, ast.stmt) or isinstance(node, SCOPES):
            continue
        spans = node.lineno <= line <= (node.end_lineno or node.lineno)
        if spans and (best is None or node.lineno >= best.lineno):
            best = node
    if best is not None and hasattr(best, "body") and best.lineno != line:
        return None  # a line inside a block that no statement of its own spans
    return best
