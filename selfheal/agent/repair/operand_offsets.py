"""Operand offsets: a name, attribute or call result moved by one where arithmetic or a call uses it.

`(page - 1) * per_page`, `total / (count - 1)`, `offset + index - 1`, `f(obj.size + 1)`: the
off-by-one a person writes when a number counted from 1 is used as an offset counted from 0, or a
count is passed on one too high. Three kinds of site:

- an operand of `*`, `/`, `//`, `%` or `**`: a name, attribute or call result, bracketed as
  `x - 1` binds looser than these (`page * n` -> `(page - 1) * n`), or a bracketed sum, moved
  inside its brackets (`(a + b) * n` -> `(a + b - 1) * n`);
- a sum of names, attributes or call results (`a + b - c`), moved once at its end: moving any one
  of its terms by one moves the whole sum by one, so one edit per direction says it;
- a call's argument that the other families leave alone: an attribute or call result passed
  positionally, a module's numeric constant, a keyword's value.

What other families already make is left to them, so a statement gets each edit once: a bare index
or slice bound, a comparison operand and `range(...)`'s bounds (`bound_operators`), `len(...)`
outside arithmetic (`call_operators`), a local or `self` attribute passed positionally
(`arithmetic_templates.bounded_arguments`), any sum holding a constant (the literal families move
the constant). A value the scope shows is not a number (a string, a collection, a flag) is not
moved, nor a sum that builds text, nor a real-valued amount (a parameter annotated `float` or
`Decimal`, a name bound to a float, a `float(...)`/`Decimal(...)` or a true division): an
off-by-one is a counting error, and moving a money amount or a rate by one unit only ever fits a
test by coincidence.

Which direction comes first is counted, not guessed: `DIRECTION_COUNTS` holds how often each site
holds `x + 1` and `x - 1` in correct code (evaluation/offbyone_directions.py). At most
`MAX_PER_STATEMENT` per statement, the best-weighted first, so a long expression cannot flood the
search.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import (
    FunctionFacts,
    ModuleFacts,
    Mutation,
    called_name,
    header_nodes,
    short,
)
from selfheal.agent.repair.scope import NON_NUMERIC_KINDS, STR_METHODS, Scope

MAX_PER_STATEMENT = 10
OPERAND_WEIGHT = 0.8  # as the bound operators' index, bound and comparison sites
SUM_WEIGHT = 0.7
ARGUMENT_WEIGHT = 0.7  # as `bounded_arguments`

# (`x + 1`, `x - 1`) occurrences per site in CPython 3.11's standard library and the packages this
# project installs (7,446 files, tests left out), x a name, attribute, call result or sum of them,
# counted by evaluation/offbyone_directions.py. The likelier direction gets the site's full weight.
DIRECTION_COUNTS: dict[str, tuple[int, int]] = {
    "*": (98, 124),
    "/": (9, 48),
    "//": (13, 32),
    "%": (40, 17),
    "**": (4, 21),
    "sum": (67, 46),
    "argument": (97, 114),  # an attribute or call result passed positionally
    "argument name": (282, 133),  # a name passed positionally
    "keyword": (60, 26),
}
MULTIPLICATIVE = {ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}
ARITHMETIC = (ast.Add, ast.Sub, *MULTIPLICATIVE)
# calls whose result is text, a collection, a flag or an object: never a count to move by one
NON_NUMERIC_CALLS = {
    "str",
    "repr",
    "format",
    "chr",
    "bytes",
    "join",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "sorted",
    "reversed",
    "enumerate",
    "zip",
    "map",
    "filter",
    "iter",
    "range",
    "bool",
    "isinstance",
    "hasattr",
    "callable",
    "type",
    "open",
    "super",
    "items",
    "keys",
    "values",
    "copy",
    *STR_METHODS,
}
BOUND_CALLS = ("range", "len")  # their arguments are the bound operators' (or moving them is absurd)
REAL_TYPES = {"float", "Decimal", "Fraction", "complex"}  # annotations and calls of real amounts


@dataclass(frozen=True)
class _Site:
    node: ast.expr  # the value moved
    kind: str  # a key of DIRECTION_COUNTS
    base: float
    bracket: bool  # `x - 1` needs brackets where it stands
    where: str  # the expression it is an operand of, or the function it is passed to; "" for a sum

    def describe(self, old: str, new: str) -> str:
        if self.kind in ("argument", "argument name", "keyword"):
            return f"argument `{old}` of `{self.where}(...)` -> `{new}`"
        if self.where:
            return f"`{old}` -> `{new}` in `{self.where}`"
        return f"`{old}` -> `{new}`"


def operand_offsets(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    module: ModuleFacts,
    scope: Scope,
) -> Iterator[Mutation]:
    """The best `MAX_PER_STATEMENT` operand offsets of one statement, best first."""
    sites = _sites(src, statement, parents, facts, scope, module.modules)
    found: list[tuple[Mutation, int]] = []
    for order, site in enumerate(sites):
        text = src.segment(site.node)
        for sign, weight in direction_weights(site.kind, site.base):
            moved = f"{text} {sign} 1"
            start, end = src.span(site.node)
            if site.bracket:
                edits = (Edit(src.path, start, end, f"({moved})"),)
            else:  # written as an insertion, so a sum keeps its own spacing and brackets
                edits = (Edit(src.path, end, end, f" {sign} 1"),)
            found.append(
                (
                    Mutation("off-by-one", weight, edits, site.describe(short(text), short(moved))),
                    order,
                )
            )
    found.sort(key=lambda entry: (-entry[0].weight, entry[1]))
    yield from (mutation for mutation, _ in found[:MAX_PER_STATEMENT])


def direction_weights(kind: str, base: float) -> list[tuple[str, float]]:
    """`-` and `+` with their weights, the likelier first: each direction's count (plus one, so
    a direction never seen still gets a chance) over the likelier one's."""
    plus, minus = DIRECTION_COUNTS[kind]
    top = max(plus, minus) + 1
    weights = [("-", base * ((minus + 1) / top)), ("+", base * ((plus + 1) / top))]
    return sorted(weights, key=lambda entry: -entry[1])


def _sites(src, statement, parents, facts: FunctionFacts, scope: Scope, imported: set[str]) -> list[_Site]:
    values = _Values(facts, scope, imported, real_names(facts.function))
    sites: list[_Site] = []
    seen: set[int] = set()

    def add(site: _Site) -> None:
        if id(site.node) not in seen:
            seen.add(id(site.node))
            sites.append(site)

    for header in header_nodes(statement):
        for node in ast.walk(header):
            if isinstance(node, ast.BinOp) and type(node.op) in MULTIPLICATIVE:
                if isinstance(node.op, ast.Mod) and _textual(node.left, scope):
                    continue  # `"%d items" % n` formats text
                symbol = MULTIPLICATIVE[type(node.op)]
                where = short(src.segment(node))
                for side in (node.left, node.right):
                    if _movable(side, values):
                        add(_Site(side, symbol, OPERAND_WEIGHT, True, where))
                    elif _movable_sum(side, values):
                        add(_Site(side, symbol, OPERAND_WEIGHT, False, where))
            elif (
                _is_sum(node)
                and not _is_sum(parents.get(node))
                and _free_position(node, parents)
                and _movable_sum(node, values)
            ):
                add(_Site(node, "sum", SUM_WEIGHT, False, ""))
            elif isinstance(node, ast.Call):
                for site in _argument_sites(node, values):
                    add(site)
    return sites


def _argument_sites(call: ast.Call, values: _Values) -> Iterator[_Site]:
    name = called_name(call)
    if name is None or name in BOUND_CALLS:
        return
    for arg in call.args:
        if isinstance(arg, ast.Starred) or _passed_on_by_bounded_arguments(arg, values.facts):
            continue
        if _movable(arg, values) and not _is_length(arg):
            kind = "argument name" if isinstance(arg, ast.Name) else "argument"
            yield _Site(arg, kind, ARGUMENT_WEIGHT, False, name)
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg is not None and _movable(value, values) and not _is_length(value):
            yield _Site(value, "keyword", ARGUMENT_WEIGHT, False, name)


def _passed_on_by_bounded_arguments(arg: ast.expr, facts: FunctionFacts) -> bool:
    """A local, parameter or `self` attribute passed positionally: `bounded_arguments` moves it."""
    if isinstance(arg, ast.Name):
        return arg.id in facts.scope_names
    return isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self"


def _free_position(node: ast.expr, parents) -> bool:
    """A sum where no other family moves it by one: not an index, slice bound, comparison operand
    or `range`/`len` argument, nor an operand of a multiplicative operator (a site of its own)."""
    parent = parents.get(node)
    if isinstance(parent, (ast.Compare, ast.Slice)):
        return False
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        return False
    if isinstance(parent, ast.BinOp) and type(parent.op) in MULTIPLICATIVE:
        return False
    return not (isinstance(parent, ast.Call) and node in parent.args and called_name(parent) in BOUND_CALLS)


@dataclass(frozen=True)
class _Values:
    """What says whether a value of the statement may be a count."""

    facts: FunctionFacts
    scope: Scope
    modules: set[str]  # names bound by `import x`
    real: set[str]  # names bound to real amounts


def _movable(node: ast.expr, values: _Values) -> bool:
    """A name, attribute or call result that may be a count."""
    scope = values.scope
    if isinstance(node, ast.Name):
        known = node.id in values.facts.scope_names or scope.kinds.get(node.id) == "number"
        return known and scope.kinds.get(node.id) not in NON_NUMERIC_KINDS and node.id not in values.real
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in values.modules:
            return False  # `math.pi`, `sys.maxsize`: a module's constant, not the program's count
        text = f"self.{node.attr}" if isinstance(node.value, ast.Name) and node.value.id == "self" else None
        return text is None or scope.kinds.get(text) not in NON_NUMERIC_KINDS
    if isinstance(node, ast.Call):
        return called_name(node) not in NON_NUMERIC_CALLS and called_name(node) not in REAL_TYPES
    return False


def _movable_sum(node: ast.expr, values: _Values) -> bool:
    """A sum of values that may be numbers, at least one a name, attribute or call result, with no
    constant term (moving the constant is the literal families' edit)."""
    if not _is_sum(node):
        return False
    terms = _terms(node)
    if any(isinstance(t, (ast.Constant, ast.JoinedStr)) or _negated_constant(t) for t in terms):
        return False
    if any(_textual(t, values.scope) or _real(t, values.real) for t in terms):
        return False
    return any(_movable(t, values) for t in terms)


def _terms(node: ast.expr) -> list[ast.expr]:
    return [*_terms(node.left), *_terms(node.right)] if _is_sum(node) else [node]


def _is_sum(node: ast.AST | None) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))


def _is_length(node: ast.expr) -> bool:
    """`len(...)`: the bound operators move it wherever it is not an operand of arithmetic."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def in_arithmetic(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Is this an operand of `+ - * / // % **`? There a value is moved by `operand_offsets`."""
    parent = parents.get(node)
    return isinstance(parent, ast.BinOp) and isinstance(parent.op, ARITHMETIC)


def _negated_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)


def _textual(node: ast.expr, scope: Scope) -> bool:
    """Text or a collection by its look or its name's kind: a string, an f-string, a text call."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Name):
        return scope.kinds.get(node.id) in NON_NUMERIC_KINDS
    if isinstance(node, ast.Call):
        return called_name(node) in NON_NUMERIC_CALLS
    return False


def real_names(function: ast.AST | None) -> set[str]:
    """Names the function binds to a real amount rather than a count: parameters annotated
    `float`, `Decimal` or `Fraction`, and names assigned a float literal, such a call, a true
    division or another such name (followed until nothing new is found)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    args = function.args
    found = {
        arg.arg
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if _type_name(arg.annotation) in REAL_TYPES
    }
    assignments = [
        (target.id, node.value, node.op if isinstance(node, ast.AugAssign) else None)
        for node in ast.walk(function)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    ]
    found |= {
        node.target.id
        for node in ast.walk(function)
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and _type_name(node.annotation) in REAL_TYPES
    }
    while True:
        new = {
            name
            for name, value, op in assignments
            if name not in found and (isinstance(op, ast.Div) or _real(value, found))
        }
        if not new:
            return found
        found |= new


def _real(node: ast.expr, real: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) in (float, complex)
    if isinstance(node, ast.Name):
        return node.id in real
    if isinstance(node, ast.Call):
        return called_name(node) in REAL_TYPES
    if isinstance(node, ast.UnaryOp):
        return _real(node.operand, real)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Div) or _real(node.left, real) or _real(node.right, real)
    return False


def _type_name(annotation: ast.AST | None) -> str | None:
    """`float`, `Decimal`, `decimal.Decimal`, `"Decimal"`: the annotation's last name."""
    if isinstance(annotation, ast.Name):
        return annotation.id
    if isinstance(annotation, ast.Attribute):
        return annotation.attr
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.rsplit(".", 1)[-1]
    return None
