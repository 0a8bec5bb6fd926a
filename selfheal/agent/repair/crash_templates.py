"""Error-directed repairs: edits at a crash site chosen by the exception the failing test raised.

- `NameError` / `UnboundLocalError`: the name replaced by an in-scope name of almost the same
  spelling (difflib), or the misspelt binding renamed to the name that is read;
- `AttributeError` / `TypeError` on None: a None check at the crash site (a guard before it, a
  default in the expression, or the statement skipped);
- `AttributeError` on another object: the attribute by spelling;
- `KeyError`: `d[k]` -> `d.get(k, default)`, `d[k] += v` -> `d[k] = d.get(k, 0) + v`,
  `d[k].append(v)` -> `d.setdefault(k, []).append(v)`, `pop(k)` -> `pop(k, None)`;
- `IndexError`: a bound (`a[i] if i < len(a) else default`, the index clamped, the loop's range
  one shorter);
- arity or keyword `TypeError`: the call adapted to the callee's signature, read from the
  project's source (a keyword renamed by spelling, an extra argument dropped or passed by keyword,
  a missing one passed from an in-scope name).

They only run where a failing test crashed with the matching exception, so they rank first there.

The families live in `crash_names`, `crash_none`, `crash_bounds` and `crash_arity`; what they
read at the crash site in `crash_site`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.crash_arity import call_arity
from selfheal.agent.repair.crash_bounds import index_bounds, missing_keys
from selfheal.agent.repair.crash_names import attributes_by_spelling, names_by_spelling
from selfheal.agent.repair.crash_none import none_checks
from selfheal.agent.repair.edits import SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, Mutation


def crash_mutations(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    crash: Crash,
    sources: dict[str, str],
) -> Iterator[Mutation]:
    kind = crash.exception
    if kind in ("NameError", "UnboundLocalError"):
        yield from names_by_spelling(src, statement, facts, crash)
    elif kind in ("AttributeError", "TypeError") and crash.on_none:
        yield from none_checks(src, statement, parents, facts, crash)
    elif kind == "AttributeError":
        yield from attributes_by_spelling(src, statement, crash)
    elif kind == "KeyError":
        yield from missing_keys(src, statement, parents, crash)
    elif kind == "IndexError":
        yield from index_bounds(src, statement, parents, facts)
    elif kind == "TypeError":
        yield from call_arity(src, statement, facts, crash, sources)
