"""Sibling templates: a statement or an argument modelled on its neighbour, with another name.

TBar's and PAR's fix patterns for a missing update and a missing conversion:
- a statement the function already has for one name, inserted for another name in scope beside
  the suspicious statement (`seen.add(key)` where the function has `seen.add(name)`,
  `total += item.price` where it has `total += fee.price`, `result.append(rest)` where it has
  `result.append(head)`);
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

MAX_INSERTS = 8  # per suspicious statement
MAX_DONORS = 4  # the nearest sibling statements used as models
MAX_NAMES = 4  # names tried in place of each of a model's names
MAX_ARGUMENTS = 6  # per suspicious statement


# -- a statement modelled on a sibling -----------------------------------------------------


def sibling_statements(
    src: SourceFile, statement: ast.stmt, parents: dict[ast.AST, ast.AST], facts: FunctionFacts, scope: Scope
) -> Iterator[Mutation]:
    """Copies of the function's update statements with one of their names replaced by another
    name in scope here, inserted before and after `statement`."""
    if not isinstance(facts.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    indent = src.indent_of(statement.lineno)
    if src.line_text(statement.lineno)[len(indent) :] != src.segment(statement).splitlines()[0]:
        return  # shares its line with other code: a whole-line insertion would split it
    start = src.line_starts[statement.lineno - 1]
    last = statement.end_lineno or statement.lineno
    end = src.line_starts[last] if last < len(src.line_starts) else len(src.data)
    donors = [s for s in facts.statements if _is_update(s) and s.lineno == s.end_lineno]
    donors.sort(key=lambda s: abs(s.lineno - statement.lineno))
    names = scope.latest_first(facts.params)
    offers: list[tuple[float, int, str, str, str]] = []  # weight, at, where, text, model line
    written: set[str] = set()
    for donor in donors[:MAX_DONORS]:
        # a copy of the suspicious line itself is likelier a duplicate than the missing update
        own = 0.8 if donor is statement else 1.0
        for text, weight in _renamed(src, donor, names, scope):
            if text in written:
                continue
            written.add(text)
            for at, where, place_weight in ((end, "after", 1.0), (start, "before", 0.9)):
                offers.append((own * weight * place_weight, at, where, text, str(donor.lineno)))
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


def _replaceable(statement: ast.stmt) -> list[ast.Name]:
    """The names of an update statement's values (not what it updates), first appearance each."""
    if isinstance(statement, ast.Expr):
        call = statement.value
        roots: list[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    elif isinstance(statement, ast.AugAssign):
        roots = [statement.value]
    else:
        target = statement.targets[0]
        roots = [target.slice, statement.value]
    found: list[ast.Name] = []
    for root in roots:
        for node in ast.walk(root):
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and node.id not in {n.id for n in found}
            ):
                found.append(node)
    return found


def _renamed(src: SourceFile, donor: ast.stmt, names: list[str], scope: Scope) -> Iterator[tuple[str, float]]:
    text = src.segment(donor)
    begin = src.span(donor)[0]
    used = {n.id for n in ast.walk(donor) if isinstance(n, ast.Name)}
    for old in _replaceable(donor):
        if old.id not in scope.local_names and old.id not in scope.names:
            continue  # a module's function or constant: replacing it is another family's work
        spans = [
            (src.span(n)[0] - begin, src.span(n)[1] - begin)
            for n in ast.walk(donor)
            if isinstance(n, ast.Name) and n.id == old.id and isinstance(n.ctx, ast.Load)
        ]
        tried = 0
        for new in names:
            if new == old.id or new in used or "." in new or not _same_kind(scope, old.id, new):
                continue
            data = text.encode("utf-8")
            for s, e in sorted(spans, reverse=True):
                data = data[:s] + new.encode("utf-8") + data[e:]
            yield data.decode("utf-8"), (1.0 if new in scope.loop_targets else 0.7)
            tried += 1
            if tried >= MAX_NAMES:
                break


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
