"""Sibling templates: a statement or an argument modelled on its neighbour, with another name.

TBar's and PAR's fix patterns for a missing update and a missing conversion:
- a statement the function already has for one name, inserted for another name in scope beside
  the suspicious statement (`seen.add(key)` where the function has `seen.add(name)`,
  `total += item.price` where it has `total += fee.price`, `result.append(rest)` where it has
  `result.append(head)`), or with two of its names swapped, the other direction of a symmetric
  relation (`graph[b].add(a)` where it has `graph[a].add(b)`); and an update of `self` that
  another method of the class makes with names in scope here (GenProg's donor code from the
  same file: `self._order.move_to_end(key)` of `put` for `get`);
- a call's argument (or a comparison's operand) transformed the way a sibling argument of the
  same call is (`max(len(a), b)` -> `max(len(a), len(b))`, `f(x.strip(), y)` ->
  `f(x.strip(), y.strip())`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, ModuleFacts, Mutation, header_nodes, short
from selfheal.agent.repair.scope import NON_NUMERIC_KINDS, Scope
from selfheal.agent.repair.statement_operators import line_span, owns_its_lines

MAX_INSERTS = 8  # per suspicious statement
MAX_DONORS = 4  # the nearest sibling statements used as models
MAX_NAMES = 4  # names tried in place of each of a model's names
MAX_MIRRORED_NAMES = 3  # of a model's names, the first this many are swapped pairwise
MAX_CLASS_DONORS = 4  # updates of `self` taken from the class's other methods
MAX_ARGUMENTS = 6  # per suspicious statement


# -- a statement modelled on a sibling -----------------------------------------------------


def sibling_statements(
    src: SourceFile, statement: ast.stmt, parents: dict[ast.AST, ast.AST], facts: FunctionFacts, scope: Scope
) -> Iterator[Mutation]:
    """Update statements modelled on the function's own, inserted before and after `statement`:
    one name replaced by another name in scope here, or two of its names swapped (the mirror
    update of a symmetric relation: `graph[b].add(a)` beside `graph[a].add(b)`); and the updates
    of `self` the class's other methods make, where every name they read is in scope here."""
    if not isinstance(facts.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    if not owns_its_lines(src, statement):
        return
    indent = src.indent_of(statement.lineno)
    start, end = line_span(src, statement)
    # nothing runs after a return, a raise or a jump
    places = [(start, "before", 0.9)]
    if not isinstance(statement, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        places.insert(0, (end, "after", 1.0))
    donors = [s for s in facts.statements if _is_update(s) and s.lineno == s.end_lineno]
    donors.sort(key=lambda s: abs(s.lineno - statement.lineno))
    existing = {src.segment(s) for s in facts.statements}
    names = scope.latest_first(facts.params)
    offers: list[tuple[float, int, str, str, str]] = []  # weight, at, where, text, model line
    written: set[str] = set(existing)

    def offer(text: str, weight: float, donor: ast.stmt) -> None:
        if text in written:
            return
        written.add(text)
        for at, where, place_weight in places:
            offers.append((weight * place_weight, at, where, text, str(donor.lineno)))

    for donor in donors[:MAX_DONORS]:
        # a copy of the suspicious line itself is likelier a duplicate than the missing update
        own = 0.8 if donor is statement else 1.0
        for text in _mirrored(src, donor, scope):
            offer(text, own * 0.9, donor)
        for text, weight in _renamed(src, donor, names, scope):
            offer(text, own * weight, donor)
    for donor in _class_donors(src, statement, parents, facts, scope)[:MAX_CLASS_DONORS]:
        offer(src.segment(donor), 0.7, donor)
    offers.sort(key=lambda offer: -offer[0])  # stable: nearer models first among equals
    for weight, at, where, text, model in offers[:MAX_INSERTS]:
        yield Mutation(
            "sibling-insert",
            weight,
            (Edit(src.path, at, at, f"{indent}{text}\n"),),
            f"insert `{short(text)}` {where} line {statement.lineno} (modelled on line {model})",
        )


def _is_update(statement: ast.stmt) -> bool:
    """A statement that adds to a collection or a total: `xs.append(v)`, `t += v`, `d[k] = v`."""
    if isinstance(statement, ast.Expr):
        call = statement.value
        return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and bool(call.args)
    if isinstance(statement, ast.AugAssign):
        return True
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Subscript)
    )


def _replaceable(statement: ast.stmt, *, keys_only: bool = False) -> list[ast.Name]:
    """The names of an update statement's values and keys (not the collection or total it
    updates, nor a function it calls), first appearance each: `b` and `a` of `graph[a].add(b)`,
    `k` and `v` of `d[k] = v`; with `keys_only`, an assignment's keys alone."""
    if isinstance(statement, ast.Expr):
        call = statement.value
        roots: list[ast.AST] = [*call.args, *(k.value for k in call.keywords), *_keys_of(call.func.value)]
    elif isinstance(statement, ast.AugAssign):
        roots = [*_keys_of(statement.target), *([] if keys_only else [statement.value])]
    else:
        roots = [*_keys_of(statement.targets[0]), *([] if keys_only else [statement.value])]
    called = {id(n.func) for root in roots for n in ast.walk(root) if isinstance(n, ast.Call)}
    found: list[ast.Name] = []
    for root in roots:
        for node in ast.walk(root):
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and id(node) not in called
                and node.id not in {n.id for n in found}
            ):
                found.append(node)
    return found


def _keys_of(node: ast.AST) -> list[ast.AST]:
    """The keys along a target or receiver: the subscripts and call arguments, `j` and `i` of
    `grid[i][j].cells`, `b` and `a` of `table.setdefault(a, {})[b]`."""
    keys: list[ast.AST] = []
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        if isinstance(node, ast.Subscript):
            keys.append(node.slice)
        elif isinstance(node, ast.Call):
            keys += [*node.args, *(k.value for k in node.keywords)]
        node = node.func if isinstance(node, ast.Call) else node.value
    return keys


def _spans_of(src: SourceFile, donor: ast.stmt, name: str) -> list[tuple[int, int]]:
    begin = src.span(donor)[0]
    return [
        (src.span(n)[0] - begin, src.span(n)[1] - begin)
        for n in ast.walk(donor)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]


def _rewritten(src: SourceFile, donor: ast.stmt, changes: dict[str, str]) -> str:
    """The donor's text with each named name's loads replaced, all at once."""
    data = src.segment(donor).encode("utf-8")
    spans = sorted(
        ((s, e, new) for old, new in changes.items() for s, e in _spans_of(src, donor, old)), reverse=True
    )
    for s, e, new in spans:
        data = data[:s] + new.encode("utf-8") + data[e:]
    return data.decode("utf-8")


def _mirrored(src: SourceFile, donor: ast.stmt, scope: Scope) -> Iterator[str]:
    """The donor with two of its names in scope swapped: two keys, or a key and a value
    passed to the update (`graph[a].add(b)`), never a key and an assigned value."""
    names = [n.id for n in _replaceable(donor, keys_only=True) if n.id in scope.names]
    names = names[:MAX_MIRRORED_NAMES]
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            text = _rewritten(src, donor, {first: second, second: first})
            if text != src.segment(donor):
                yield text


def _renamed(src: SourceFile, donor: ast.stmt, names: list[str], scope: Scope) -> Iterator[tuple[str, float]]:
    used = {n.id for n in ast.walk(donor) if isinstance(n, ast.Name)}
    for old in _replaceable(donor):
        if old.id not in scope.local_names and old.id not in scope.names:
            continue  # a module's function or constant: replacing it is another family's work
        tried = 0
        for new in names:
            if new == old.id or new in used or "." in new or not _same_kind(scope, old.id, new):
                continue
            yield _rewritten(src, donor, {old.id: new}), (1.0 if new in scope.loop_targets else 0.7)
            tried += 1
            if tried >= MAX_NAMES:
                break


def _class_donors(
    src: SourceFile, statement: ast.stmt, parents: dict[ast.AST, ast.AST], facts: FunctionFacts, scope: Scope
) -> list[ast.stmt]:
    """Updates of `self` in the class's other methods (`self._data.move_to_end(key)` of `put`
    for `get`) whose every other name is in scope at `statement`, the nearest first."""
    owner = parents.get(facts.function)
    if not isinstance(owner, ast.ClassDef):
        return []
    in_scope = set(scope.names) | {"self"}
    found: list[ast.stmt] = []
    for method in owner.body:
        if method is facts.function or not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(method):
            if (
                isinstance(node, ast.stmt)
                and _is_update(node)
                and node.lineno == node.end_lineno
                and _updates_self(node)
                and all(
                    n.id in in_scope
                    for n in ast.walk(node)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                )
            ):
                found.append(node)
    found.sort(key=lambda s: abs(s.lineno - statement.lineno))
    return found


def _updates_self(statement: ast.stmt) -> bool:
    """Does the update change an attribute of `self` (not a local of the other method)?"""
    if isinstance(statement, ast.Expr):
        node: ast.AST = statement.value.func.value
    elif isinstance(statement, ast.AugAssign):
        node = statement.target
    else:
        node = statement.targets[0]
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id == "self"


def _same_kind(scope: Scope, old: str, new: str) -> bool:
    """Do the two names' known kinds allow one for the other? Unknown kinds allow anything."""
    a, b = scope.kinds.get(old), scope.kinds.get(new)
    if not a or not b:
        return True
    return a == b or (a not in NON_NUMERIC_KINDS and b not in NON_NUMERIC_KINDS)


# -- an argument transformed like its sibling ----------------------------------------------


def sibling_arguments(src: SourceFile, statement: ast.stmt, module: ModuleFacts) -> Iterator[Mutation]:
    """Plain-name arguments of a call (operands of a comparison) given the transformation a
    sibling argument of the same call has: a call, a method, an attribute, an index, an offset."""
    made = 0
    for header in header_nodes(statement):
        for node in ast.walk(header):
            if isinstance(node, ast.Call):
                siblings = [*node.args, *(k.value for k in node.keywords)]
            elif isinstance(node, ast.Compare) and len(node.comparators) == 1:
                siblings = [node.left, *node.comparators]
            else:
                continue
            for mutation in _transformed_siblings(src, node, siblings, module.modules):
                yield mutation
                made += 1
                if made >= MAX_ARGUMENTS:
                    return


def _transformed_siblings(
    src: SourceFile, node: ast.AST, siblings: list[ast.expr], modules: set[str]
) -> Iterator[Mutation]:
    plain = [a for a in siblings if isinstance(a, ast.Name) and isinstance(a.ctx, ast.Load)]
    for model in siblings:
        inner = _transformed_part(model, modules)
        if inner is None:
            continue
        model_text = src.segment(model)
        begin, _ = src.span(model)
        inner_start, inner_end = src.span(inner)
        for target in plain:
            if target is model or src.segment(target) == src.segment(inner):
                continue
            data = model_text.encode("utf-8")
            new = (
                data[: inner_start - begin] + target.id.encode("utf-8") + data[inner_end - begin :]
            ).decode("utf-8")
            yield Mutation(
                "sibling-argument",
                1.0 if isinstance(node, ast.Call) else 0.8,
                (Edit(src.path, *src.span(target), new),),
                f"`{target.id}` -> `{short(new)}` like `{short(model_text)}` in `{short(src.segment(node))}`",
            )


def _transformed_part(node: ast.expr, modules: set[str]) -> ast.expr | None:
    """What a simple transformation is applied to: the argument of a function (`f(x)`,
    `math.f(x)`, `len(xs[0])`), or the name a method, an attribute, an index or an offset is
    taken of (`n.m(...)`, `n.a`, `n[i]`, `n + 1`)."""
    if isinstance(node, ast.Call):
        function_call = isinstance(node.func, ast.Name) or (
            isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in modules
        )
        if function_call:
            return node.args[0] if len(node.args) == 1 and not node.keywords else None
        if not isinstance(node.func, ast.Attribute):
            return None
        inner = node.func.value
    elif isinstance(node, (ast.Attribute, ast.Subscript)):
        inner = node.value
    elif isinstance(node, ast.BinOp):
        if isinstance(node.right, ast.Constant):
            inner = node.left
        elif isinstance(node.left, ast.Constant):
            inner = node.right
        else:
            return None
    else:
        return None
    if not isinstance(inner, ast.Name) or inner.id in ("self", "cls") or inner.id in modules:
        return None  # `self.x`, `math.pi`: the receiver is not a value to transform
    return inner
