"""One AST construction at a time, on the Pythons whose AST constructor is not thread-safe.

CPython 3.11 before 3.11.8, and 3.12 before 3.12.2, keep the AST constructor's recursion counter
in state every thread shares: a garbage collection that runs Python code inside `ast.parse` lets
another thread's parse move that counter, and the first parse then fails with `SystemError: AST
constructor recursion depth mismatch` (CPython gh-106905). The bot heals in several threads of one
process and a heal parses sources throughout, so where the interpreter has that race, the server
puts `ast.parse` (and `ast.literal_eval`, which calls it) behind one lock for the whole process.
"""

from __future__ import annotations

import ast
import functools
import sys
import threading

# re-entrant: a finalizer the collector runs inside a parse may itself parse on the same thread
AST_LOCK = threading.RLock()


def has_the_race(version: tuple[int, ...] = tuple(sys.version_info[:3])) -> bool:
    """Whether this Python's AST constructor shares its recursion counter between threads."""
    release = tuple(version[:3])
    return (3, 11, 0) <= release < (3, 11, 8) or (3, 12, 0) <= release < (3, 12, 2)


def serialize_ast_parsing() -> bool:
    """Put `ast.parse` behind AST_LOCK where this Python has the race (once per process); True
    when it is behind it."""
    if not has_the_race():
        return False
    if getattr(ast.parse, "selfheal_serialized", False):
        return True
    unguarded = ast.parse

    @functools.wraps(unguarded)
    def parse(*args, **kwargs):  # type: ignore[no-untyped-def]
        with AST_LOCK:
            return unguarded(*args, **kwargs)

    parse.selfheal_serialized = True  # type: ignore[attr-defined]
    ast.parse = parse
    return True
