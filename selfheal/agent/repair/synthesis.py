"""Expression synthesis: `synthesized_mutations`, values built from what is in scope at a suspect line.

One step beyond a single-token mutation: a value at an argument, return, condition or assignment
position adjusted by an in-scope value (`width` -> `width - margin`) or by one, clamped with
`min`/`max` against an in-scope bound or zero, or replaced by an in-scope name or a
sub-expression of the function; a neutral value swapped for another (`0` -> `float("-inf")`,
`[]` -> `None`); and a statement inserted that updates an in-scope collection with an in-scope
value (`seen.add(key)`, `out.append(item)`, `index[key] = item`, `total += amount`).

The names come from `scope.scope_at`; the failing tests' assertion messages (`value_evidence`)
say which kinds of candidate fit the failure and those rank first. The family is bounded: at
most `limit` mutations per statement, the best-weighted ones, and the search gives it a cap per
heal.
"""

from __future__ import annotations

import ast

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import ATOMS, FunctionFacts, ModuleFacts, Mutation, header_nodes, short
from selfheal.agent.repair.scope import NON_NUMERIC_KINDS, STR_METHODS, Scope, name_of, scope_at
from selfheal.agent.repair.value_evidence import ValueEvidence

MAX_PER_STATEMENT = 24
MAX_POSITION_LENGTH = 60
MAX_ADJUSTERS = 4
MAX_BOUNDS = 3
MAX_REPLACEMENTS = 5
MAX_UPDATES = 4  # per collection
BASE_WEIGHT = 0.3  # without evidence for it: below the single-token families of a line
NEUTRAL_SWAPS = {
    "0": ("None", 'float("-inf")', 'float("inf")', "1"),
    "0.0": ("None", 'float("-inf")', 'float("inf")', "1.0"),
    "1": ("0", "None"),
    "''": ("None",),
    '""': ("None",),
    "None": ("0", '""', "[]", "{}"),
    "[]": ("None", "set()", "{}", "()"),
    "{}": ("None", "[]", "set()"),
    "set()": ("None", "[]", "{}"),
    "()": ("None", "[]"),
    "list()": ("None", "set()", "{}"),
    "dict()": ("None", "[]", "set()"),
    'float("inf")': ('float("-inf")', "None", "0"),
    'float("-inf")': ('float("inf")', "None", "0"),
}
TEXT_CALLS = {"str", "repr", "format", "join", "chr", *STR_METHODS}
# a binary operator that binds at least as tightly as `+`/`-` needs no brackets before ` + n`
TIGHT_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def synthesized_mutations(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    module: ModuleFacts,
    evidence: ValueEvidence,
    limit: int = MAX_PER_STATEMENT,
    scope: Scope | None = None,
) -> list[Mutation]:
    """The best `limit` synthesized repairs of one statement, best first (`scope`: the statement's,
    when the caller has it already)."""
    if limit <= 0 or not isinstance(facts.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    if scope is None:
        scope = scope_at(src, statement, parents, facts, module)
    groups: list[list[Mutation]] = []
    for node, role in value_positions(src, statement):
        groups.append(
            [
                *adjusted(src, node, role, scope, evidence),
                *clamped(src, node, role, scope, evidence),
                *neutral_swaps(src, node, role, evidence),
                *replaced(src, node, role, scope, facts),
            ]
        )
    groups.append(collection_updates(src, statement, facts, scope, evidence))
    # best weight first; at equal weight, each position's first ideas before anyone's later ones
    ranked = sorted(
        ((m, rank, index) for index, group in enumerate(groups) for rank, m in enumerate(group)),
        key=lambda entry: (-entry[0].weight, entry[1], entry[2]),
    )
    return [m for m, _, _ in ranked[:limit]]


def value_positions(src: SourceFile, statement: ast.stmt) -> list[tuple[ast.expr, str]]:
    """The values of a statement a synthesized expression may take the place of, with their role."""
    positions: list[tuple[ast.expr, str]] = []
    if isinstance(statement, ast.Return) and statement.value is not None:
        positions.append((statement.value, "return"))
    elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and statement.value is not None:
        positions.append((statement.value, "value"))
    if isinstance(statement, (ast.If, ast.While)):
        for node in ast.walk(statement.test):
            if isinstance(node, ast.Compare):
                positions += [(operand, "condition") for operand in (node.left, *node.comparators)]
    for header in header_nodes(statement):
        for node in ast.walk(header):
            if isinstance(node, ast.Call):
                values = [*node.args, *(k.value for k in node.keywords if k.arg is not None)]
                positions += [(v, "argument") for v in values if not isinstance(v, ast.Starred)]
    seen: set[int] = set()
    kept = []
    for node, role in positions:
        if id(node) in seen or len(src.segment(node)) > MAX_POSITION_LENGTH or "\n" in src.segment(node):
            continue
        seen.add(id(node))
        kept.append((node, role))
    return kept


def adjusted(
    src: SourceFile, node: ast.expr, role: str, scope: Scope, evidence: ValueEvidence
) -> list[Mutation]:
    """`E` -> `E + n`, `E - n` for an in-scope numeric value `n`, and `E + 1`, `E - 1`."""
    if _literal(node) or not _numeric_shape(node, scope):
        return []
    text = _operand(src, node)
    used = _names_in(node)
    numbers = [n for n in scope.names if n not in used and scope.kinds.get(n) not in NON_NUMERIC_KINDS]
    adjusters = sorted(numbers, key=lambda n: scope.kinds.get(n) != "number")[:MAX_ADJUSTERS]
    name_weight = 1.0 if evidence.off_by_input else BASE_WEIGHT
    one_weight = 1.0 if evidence.off_by_one else BASE_WEIGHT * 0.8
    # `x + 31` -> `x + 31 + 1` is the literal family's `x + 32`, written worse: that one is left to it
    ones = [] if _ends_in_number(node) else [("1", one_weight)]
    found = []
    for value, weight in [*((n, name_weight) for n in adjusters), *ones]:
        for sign in ("-", "+"):
            new = f"{text} {sign} {value}"
            found.append(_replace(src, node, new, "synthesis-adjust", weight, role))
    return found


def _ends_in_number(node: ast.expr) -> bool:
    """`x + 31`, `n - 1`: an expression whose last term is a number the literal families already move."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, (ast.Add, ast.Sub))
        and isinstance(node.right, ast.Constant)
        and type(node.right.value) in (int, float)
    )


def clamped(
    src: SourceFile, node: ast.expr, role: str, scope: Scope, evidence: ValueEvidence
) -> list[Mutation]:
    """`E` -> `min(E, b)` / `max(E, b)` for an in-scope bound `b` or zero."""
    if role == "condition" or _literal(node) or not _numeric_shape(node, scope):
        return []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
        return []
    used = _names_in(node)
    bounds = [n for n in scope.names if n not in used and scope.kinds.get(n) not in NON_NUMERIC_KINDS]
    weight = 1.0 if evidence.at_a_bound else BASE_WEIGHT
    text = src.segment(node)
    found = []
    for bound in [*bounds[:MAX_BOUNDS], "0"]:
        for clamp in ("min", "max"):
            found.append(_replace(src, node, f"{clamp}({text}, {bound})", "synthesis-clamp", weight, role))
    return found


def neutral_swaps(src: SourceFile, node: ast.expr, role: str, evidence: ValueEvidence) -> list[Mutation]:
    """A neutral or initial value swapped for another: `0` -> `float("-inf")`, `[]` -> `None`."""
    text = src.segment(node)
    weight = 1.0 if evidence.neutral else BASE_WEIGHT
    if role != "value":
        weight *= 0.6  # a starting value is bound by an assignment; elsewhere a swap is a long shot
    return [
        _replace(src, node, other, "synthesis-neutral", weight, role) for other in NEUTRAL_SWAPS.get(text, ())
    ]


def replaced(
    src: SourceFile, node: ast.expr, role: str, scope: Scope, facts: FunctionFacts
) -> list[Mutation]:
    """A value replaced by an in-scope name or a sub-expression of the function of the same kind.

    A plain local or parameter is left to the `name` operator, which already swaps those; a
    compound expression is left whole (its parts are positions of their own)."""
    if not isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) or (
        isinstance(node, ast.Name) and node.id in facts.scope_names
    ):
        return []
    text = src.segment(node)
    wanted = _kind_of(node, scope)
    choices = [
        c
        for c in [*scope.names, *scope.expressions]
        if c != text
        and text not in c
        and c not in text
        and scope.kinds.get(c, wanted) == wanted
        and not (c in facts.scope_names and isinstance(node, ast.Name))
    ]
    return [
        _replace(src, node, choice, "synthesis-replace", BASE_WEIGHT, role)
        for choice in choices[:MAX_REPLACEMENTS]
    ]


def collection_updates(
    src: SourceFile, statement: ast.stmt, facts: FunctionFacts, scope: Scope, evidence: ValueEvidence
) -> list[Mutation]:
    """A statement inserted after an assignment or a call, or at the top of a loop's body, that
    adds an in-scope value to an in-scope collection: `seen.add(key)`, `out.append(item)`,
    `index[key] = item`, `total += amount`."""
    where = _insertion_point(src, statement)
    if where is None:
        return []
    offset, indent = where
    existing = {ast.dump(s) for s in facts.statements}
    assigned = [name_of(t) for target in _targets(statement) for t in _flat(target)]
    assigned = [a for a in assigned if a]
    item_weight = 1.0 if evidence.items_missing else 0.6
    collections = [c for c in scope.of_kind("list", "set", "dict") if c in scope.local_names]
    found = []
    for collection in [*collections, *scope.accumulators]:
        if collection in assigned:
            continue
        kind = "number" if collection in scope.accumulators else scope.kinds[collection]
        tested = list(dict.fromkeys(v for v, c in scope.membership if c == collection))
        near = [(v, 0.6) for v in assigned] + [(v, 0.5) for v in scope.loop_targets]
        if kind == "dict" and tested:
            # a key the function already looks up, with a value bound nearby
            updates = [(f"{collection}[{k}] = {v}", w) for k in tested[:2] for v, w in near if v != k]
        else:
            values = [(v, 1.0) for v in tested] + near
            if kind == "number":
                values = [(v, w) for v, w in values if scope.kinds.get(v) not in NON_NUMERIC_KINDS]
            updates = [
                (line, w)
                for v, w in values
                if v != collection
                for line in _updates(collection, kind, v, [o for o, _ in values if o != v])
            ]
        kept: list[str] = []
        for line, weight in updates:
            if line in kept or len(kept) >= MAX_UPDATES or ast.dump(ast.parse(line).body[0]) in existing:
                continue
            kept.append(line)
            found.append(
                Mutation(
                    "synthesis-update",
                    weight * item_weight,
                    (Edit(src.path, offset, offset, f"{indent}{line}\n"),),
                    f"insert `{line}` after line {statement.lineno}"
                    if not isinstance(statement, (ast.For, ast.AsyncFor))
                    else f"insert `{line}` at the top of the loop at line {statement.lineno}",
                )
            )
    return found


def _updates(collection: str, kind: str, value: str, others: list[str]) -> list[str]:
    if kind == "list":
        return [f"{collection}.append({value})"]
    if kind == "set":
        return [f"{collection}.add({value})"]
    if kind == "number":
        return [f"{collection} += {value}"]
    return [f"{collection}[{value}] = {other}" for other in others[:2]]


def _insertion_point(src: SourceFile, statement: ast.stmt) -> tuple[int, str] | None:
    """Where an inserted statement goes: after a simple statement that has its line(s) to itself,
    or before the first statement of a loop's body."""
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        first = statement.body[0]
        if first.lineno == statement.lineno:
            return None
        return src.line_starts[first.lineno - 1], src.indent_of(first.lineno)
    if not isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
        return None
    indent = src.indent_of(statement.lineno)
    last = statement.end_lineno or statement.lineno
    if src.line_text(statement.lineno)[len(indent) :] != src.segment(statement).splitlines()[0]:
        return None
    rest = src.line_text(last)[statement.end_col_offset or 0 :].strip()
    if (rest and not rest.startswith("#")) or last >= len(src.line_starts):
        return None  # more code on the same line, or no line after it
    return src.line_starts[last], indent


def _flat(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for element in target.elts for t in _flat(element)]
    return [target]


def _targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return list(statement.targets)
    if isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        return [statement.target]
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return [statement.target]
    return []


def _numeric_shape(node: ast.expr, scope: Scope) -> bool:
    """Could this value be a number? Loosely: not a literal or name of another kind."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(
        node,
        (
            ast.List,
            ast.Tuple,
            ast.Dict,
            ast.Set,
            ast.JoinedStr,
            ast.Compare,
            ast.BoolOp,
            ast.Lambda,
            ast.ListComp,
            ast.SetComp,
            ast.DictComp,
            ast.GeneratorExp,
        ),
    ):
        return False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return False
    for part in ast.walk(node):
        if isinstance(part, ast.JoinedStr) or (
            isinstance(part, ast.Constant) and isinstance(part.value, str)
        ):
            return False  # text being built
        if isinstance(part, ast.Call) and _called(part) in TEXT_CALLS:
            return False
    name = node.id if isinstance(node, ast.Name) else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        name = f"self.{node.attr}"
    return name is None or scope.kinds.get(name) not in NON_NUMERIC_KINDS


def _kind_of(node: ast.expr, scope: Scope) -> str | None:
    """The loose kind of a value: its name's, else text or number by its shape, else unknown."""
    name = name_of(node)
    if name and name in scope.kinds:
        return scope.kinds[name]
    if not _numeric_shape(node, scope):
        return "str" if _textual(node) else None
    if isinstance(node, ast.Call) and _called(node) in ("len", "sum", "int", "float", "round", "abs"):
        return "number"
    return None


def _textual(node: ast.expr) -> bool:
    return any(
        isinstance(p, ast.JoinedStr)
        or (isinstance(p, ast.Constant) and isinstance(p.value, str))
        or (isinstance(p, ast.Call) and _called(p) in TEXT_CALLS)
        for p in ast.walk(node)
    )


def _literal(node: ast.expr) -> bool:
    """A constant, negative ones included: the off-by-one operators already move those."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant)


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _operand(src: SourceFile, node: ast.expr) -> str:
    text = src.segment(node)
    if isinstance(node, ATOMS) or (isinstance(node, ast.BinOp) and isinstance(node.op, TIGHT_OPERATORS)):
        return text
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return text
    return f"({text})"


def _names_in(node: ast.expr) -> set[str]:
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    found |= {
        f"self.{n.attr}"
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    }
    return found


def _replace(src: SourceFile, node: ast.expr, new: str, family: str, weight: float, role: str) -> Mutation:
    old = src.segment(node)
    return Mutation(
        family, weight, (Edit(src.path, *src.span(node), new),), f"{role} `{short(old)}` -> `{short(new)}`"
    )
