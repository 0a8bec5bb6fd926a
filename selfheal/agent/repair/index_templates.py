"""Index steps: a position that walks a list it also shrinks or grows, stepped back or on.

A loop that walks a list by a position and removes the element there (`xs.remove(x)`,
`xs.pop(i)`, `del xs[i]`) must step the position back, or the next element slides under it and
is skipped; one that inserts before it must step on. The missing `i -= 1` / `i += 1` is a common
real fix. The positions are the names the function uses as a subscript (`xs[i]`) or as the
position argument of `insert` / `pop`, and the statement must sit in a loop.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, Mutation, inside_loop, short

SHRINKING_METHODS = {"remove", "pop", "popleft"}
GROWING_METHODS = {"insert"}
MAX_POSITIONS = 2


def index_positions(function: ast.AST | None) -> list[str]:
    """Names used as a position in the function: `xs[i]`, `xs.insert(i, v)`, `xs.pop(i)`."""
    found: list[str] = []
    if function is None:
        return found
    for node in ast.walk(function):
        position = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name):
            position = node.slice.id
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("insert", "pop")
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            position = node.args[0].id
        if position is not None and position not in found:
            found.append(position)
    return found


def _change(statement: ast.stmt) -> str | None:
    """ "shrink" or "grow" when the statement removes from or inserts into a collection."""
    if isinstance(statement, ast.Delete) and any(isinstance(t, ast.Subscript) for t in statement.targets):
        return "shrink"
    call = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
        if call.func.attr in SHRINKING_METHODS:
            return "shrink"
        if call.func.attr in GROWING_METHODS:
            return "grow"
    return None


def index_steps(
    src: SourceFile, statement: ast.stmt, parents: dict[ast.AST, ast.AST], facts: FunctionFacts
) -> Iterator[Mutation]:
    change = _change(statement)
    if change is None or facts.function is None or not inside_loop(statement, parents, facts.function):
        return
    step = "-= 1" if change == "shrink" else "+= 1"
    starts = src.line_starts
    indent = src.indent_of(statement.lineno)
    last = statement.end_lineno or statement.lineno
    end = starts[last] if last < len(starts) else len(src.data)
    positions = [p for p in index_positions(facts.function) if p in facts.scope_names]
    for rank, name in enumerate(positions[:MAX_POSITIONS]):
        yield Mutation(
            "index-step",
            1.0 - 0.2 * rank,
            (Edit(src.path, end, end, f"{indent}{name} {step}\n"),),
            f"insert `{name} {step}` after `{short(src.segment(statement))}` (line {statement.end_lineno})",
        )
