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
from functools import lru_cache

from selfheal.agent.repair.circumstances import dotted
from selfheal.agent.repair.edits import SourceFile
from selfheal.agent.repair.mutation import enclosing_function, header_nodes, parent_map, statement_at


def reads_what_is_assigned(text: str, *, assigned_at: int, read_at: int) -> bool:
    parsed = _parsed(text)
    if parsed is None:
        return False
    src, parents = parsed
    setter = statement_at(src, assigned_at, parents)
    reader = statement_at(src, read_at, parents)
    if setter is None or reader is None or reader.lineno <= (setter.end_lineno or setter.lineno):
        return False
    function = enclosing_function(setter, parents)
    if function is None or function is not enclosing_function(reader, parents):
        return False
    target = _assigned(setter)
    return target is not None and any(
        isinstance(node, (ast.Name, ast.Attribute))
        and isinstance(node.ctx, ast.Load)
        and dotted(node) == target
        for part in header_nodes(reader)
        for node in ast.walk(part)
    )


@lru_cache(maxsize=8)
def _parsed(text: str) -> tuple[SourceFile, dict[ast.AST, ast.AST]] | None:
    """The file parsed once for the several pairs of candidates one ordering asks about."""
    try:
        src = SourceFile("", text)
    except SyntaxError:
        return None
    return src, parent_map(src.tree)


def _assigned(statement: ast.stmt) -> str | None:
    """The one name or attribute chain (`total`, `self.level`) the statement assigns; None for
    anything else (a subscript, a call along the chain, several targets)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
        target = statement.target
    else:
        return None
    return dotted(target) or None
