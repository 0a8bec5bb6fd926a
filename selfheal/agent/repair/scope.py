"""What is in scope at one statement: the names a synthesized expression may use, and their kinds.

`scope_at` reads the function around a statement: its parameters, the locals bound before the
statement (loop targets included, comprehension variables not), the attributes of `self` the
function reads, and the module's simple constants; and the function's small sub-expressions
(`item.key`, `row[0]`, `len(prefix)`) that a value could be built from. Each name gets a loose
kind (`list`, `set`, `dict`, `number`, `str`) where its binding or its use says so cheaply.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from selfheal.agent.repair.edits import SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, ModuleFacts

MAX_EXPRESSION_LENGTH = 30
MAX_EXPRESSIONS = 12
COLLECTION_CALLS = {
    "list": "list",
    "set": "set",
    "dict": "dict",
    "defaultdict": "dict",
    "Counter": "dict",
    "OrderedDict": "dict",
    "deque": "list",
}
ANNOTATION_KINDS = {
    "int": "number",
    "float": "number",
    "str": "str",
    "list": "list",
    "List": "list",
    "set": "set",
    "Set": "set",
    "dict": "dict",
    "Dict": "dict",
}
# calls that change or consume what they are called on: never worth evaluating twice
STATEFUL_METHODS = {"pop", "popleft", "popitem", "clear", "sort", "reverse", "read", "readline", "close"}
STR_METHODS = {
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "startswith",
    "endswith",
    "replace",
    "casefold",
    "title",
    "format",
    "encode",
    "ljust",
    "rjust",
    "center",
    "zfill",
    "isdigit",
    "isalpha",
}
WEAK_KINDS = ("iterable", "object")
# kinds of a value that is not a number: moving it by one or adding a number to it is absurd
NON_NUMERIC_KINDS = ("list", "set", "dict", "str", "iterable", "object", "bool")
METHOD_KINDS = {"append": "list", "extend": "list", "insert": "list", "add": "set", "setdefault": "dict"}


@dataclass(frozen=True)
class Scope:
    names: tuple[str, ...]  # nearest first: parameters, locals bound before, `self.x`, constants
    kinds: dict[str, str] = field(default_factory=dict)  # name -> list | set | dict | number | str
    expressions: tuple[str, ...] = ()  # sub-expressions of the function, by first appearance
    loop_targets: tuple[str, ...] = ()  # of the loops around the statement, innermost first
    membership: tuple[tuple[str, str], ...] = ()  # (value, collection): `v in c`, and `c[v]` of a dict
    local_names: tuple[str, ...] = ()  # what the function may rebind or update: not module names
    accumulators: tuple[str, ...] = ()  # locals bound to a number literal before (`total = 0`)

    def of_kind(self, *kinds: str) -> list[str]:
        return [n for n in self.names if self.kinds.get(n) in kinds]

    def latest_first(self, params: list[str]) -> list[str]:
        """The function's own values, the likeliest meant first: the surrounding loops' variables,
        then the locals the latest bound first, then the parameters and attributes of `self`."""
        bound = [n for n in self.local_names if n not in params and not n.startswith("self.")]
        ordered = list(self.loop_targets)
        for name in [*reversed(bound), *self.local_names]:
            if name not in ordered:
                ordered.append(name)
        return ordered


def scope_at(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    module: ModuleFacts,
) -> Scope:
    function = facts.function
    root: ast.AST = function if function is not None else src.tree
    nodes = list(_scope_nodes(root))
    names: list[str] = list(facts.params)
    kinds: dict[str, str] = {}
    accumulators: list[str] = []
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = function.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            kind = _annotation_kind(arg.annotation)
            if kind and arg.arg in names:
                kinds[arg.arg] = kind
    loops = _loops_around(statement, parents, function)
    loop_targets = [n.id for loop in loops for n in ast.walk(loop.target) if isinstance(n, ast.Name)]
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.lineno < statement.lineno:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name) and n.id != "self"):
                    if name not in names:
                        names.append(name)
                    if isinstance(target, ast.Name) and node.value is not None and name not in kinds:
                        kinds[name] = _value_kind(node.value) or ""
                        if isinstance(node.value, ast.Constant) and kinds[name] == "number":
                            accumulators.append(name)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and node.lineno <= statement.lineno:
            for name in (n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)):
                if name not in names and (name in loop_targets or node.lineno < statement.lineno):
                    names.append(name)
            if isinstance(node.target, ast.Name) and _is_text_split(node.iter):
                kinds.setdefault(node.target.id, "str")
    for name, kind in _kinds_from_use(nodes).items():
        if not kinds.get(name):
            kinds[name] = kind
    local_names = tuple(names)
    owner = parents.get(function) if function is not None else None
    for text in _self_attributes(root, owner):
        if text not in names:
            names.append(text)
    if isinstance(owner, ast.ClassDef):
        for text, kind in _attribute_kinds(owner).items():
            if not kinds.get(text):
                kinds[text] = kind
    for name, definition in module.definitions.items():
        value = definition.value if isinstance(definition, (ast.Assign, ast.AnnAssign)) else None
        kind = _value_kind(value) if value is not None else None
        if kind and name not in names:
            names.append(name)
            kinds[name] = kind
    membership = tuple(
        (src.segment(node.left), name_of(node.comparators[0]) or "")
        for node in nodes
        if isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], (ast.In, ast.NotIn))
        and name_of(node.comparators[0])
    )
    membership += tuple(
        (src.segment(node.slice), name_of(node.value) or "")
        for node in nodes
        if isinstance(node, ast.Subscript)
        and kinds.get(name_of(node.value) or "") == "dict"
        and not isinstance(node.slice, ast.Slice)
    )
    return Scope(
        names=tuple(names),
        kinds={k: v for k, v in kinds.items() if v},
        expressions=tuple(_sub_expressions(src, root)),
        loop_targets=tuple(loop_targets),
        membership=membership,
        local_names=tuple(n for n in names if n in local_names or n.startswith("self.")),
        accumulators=tuple(accumulators),
    )


def _kinds_from_use(nodes: list[ast.AST]) -> dict[str, str]:
    """Kinds that how a name is used gives away: `x.append(...)` a list, `x.lower()` a string,
    `x + 1` or `range(x)` a number, `for _ in x` or `len(x)` something iterable, `x.total` an object."""
    found: dict[str, str] = {}
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = name_of(node.func.value)
            if owner and node.func.attr in METHOD_KINDS:
                _note(found, owner, METHOD_KINDS[node.func.attr])
            elif owner and node.func.attr in STR_METHODS:
                _note(found, owner, "str")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
            owner = name_of(node.args[0])
            if owner and node.func.id in ("len", "sorted", "list", "set", "enumerate", "reversed"):
                _note(found, owner, "iterable")
            elif owner and node.func.id == "range":
                _note(found, owner, "number")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id != "self"
            and id(node) not in called
        ):
            _note(found, node.value.id, "object")  # `invoice.amount`: a record, not a number
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and name_of(node.iter):
            _note(found, name_of(node.iter) or "", "iterable")
        elif isinstance(node, (ast.BinOp, ast.AugAssign, ast.Compare)):
            operands = (
                [node.left, node.right]
                if isinstance(node, ast.BinOp)
                else [node.target, node.value]
                if isinstance(node, ast.AugAssign)
                else [node.left, *node.comparators]
            )
            if isinstance(node, ast.Compare) and not all(
                isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops
            ):
                continue
            if any(_number_literal(o) for o in operands):
                for operand in operands:
                    owner = name_of(operand)
                    if owner:
                        _note(found, owner, "number")
    return found


def _note(found: dict[str, str], name: str, kind: str) -> None:
    """Keep the first kind seen, unless a vaguer one (iterable, object) meets a precise one."""
    if name not in found or (found[name] in WEAK_KINDS and kind not in WEAK_KINDS):
        found[name] = kind


def _number_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_text_split(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr
        in (
            "split",
            "splitlines",
            "rsplit",
        )
    )


def _scope_nodes(root: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function body, not descending into nested scopes (functions, classes,
    lambdas, comprehensions), whose names are not the function's own."""
    queue = deque(ast.iter_child_nodes(root))
    while queue:
        node = queue.popleft()
        yield node
        if not isinstance(
            node,
            (
                ast.FunctionDef,
                ast.AsyncFunctionDef,
                ast.ClassDef,
                ast.Lambda,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
            ),
        ):
            queue.extend(ast.iter_child_nodes(node))


def _self_attributes(function: ast.AST, owner: ast.AST | None) -> list[str]:
    """`self.x` the function reads, then those its class assigns anywhere; methods left out."""
    nodes = list(_scope_nodes(function))
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    found = [
        f"self.{n.attr}"
        for n in nodes
        if _is_self_attribute(n) and isinstance(n.ctx, ast.Load) and id(n) not in called
    ]
    if isinstance(owner, ast.ClassDef):
        found += [
            f"self.{n.attr}"
            for n in ast.walk(owner)
            if _is_self_attribute(n) and isinstance(n.ctx, ast.Store)
        ]
    return list(dict.fromkeys(found))


def _attribute_kinds(owner: ast.ClassDef) -> dict[str, str]:
    """Kinds of `self.x` from what the class assigns it (`self.done = False`: a flag)."""
    found: dict[str, str] = {}
    for node in ast.walk(owner):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and _is_self_attribute(node.targets[0]):
            kind = _value_kind(node.value)
            if kind:
                found.setdefault(f"self.{node.targets[0].attr}", kind)
    return found


def _is_self_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _loops_around(statement: ast.stmt, parents, function) -> list[ast.For | ast.AsyncFor]:
    loops = []
    node = statement if isinstance(statement, (ast.For, ast.AsyncFor)) else parents.get(statement)
    while node is not None and node is not function:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            loops.append(node)
        node = parents.get(node)
    return loops


def name_of(node: ast.AST) -> str | None:
    """`x` for a name, `self.x` for an attribute of self, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return None


def _value_kind(value: ast.AST) -> str | None:
    if isinstance(value, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(value, (ast.Set, ast.SetComp)):
        return "set"
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return "bool"
    if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)):
        return "number"
    if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant):
        return _value_kind(value.operand)
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return "str"
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        sides = (_value_kind(value.left), _value_kind(value.right))
        return "number" if "number" in sides and set(sides) <= {"number", None} else None
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in COLLECTION_CALLS:
            return COLLECTION_CALLS[name]
        if name in ("len", "int", "float", "sum", "round", "abs"):
            return "number"
    return None


def _annotation_kind(annotation: ast.AST | None) -> str | None:
    if isinstance(annotation, ast.Name):
        return ANNOTATION_KINDS.get(annotation.id)
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
        return ANNOTATION_KINDS.get(annotation.value.id)
    return None


def _sub_expressions(src: SourceFile, root: ast.AST) -> list[str]:
    """Small loaded expressions worth reusing: attributes, subscripts and one-argument calls."""
    found: list[str] = []
    nodes = list(_scope_nodes(root))
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    for node in nodes:
        if id(node) in called or not (
            (isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Load))
            or (
                isinstance(node, ast.Call)
                and not node.keywords
                and (
                    (isinstance(node.func, ast.Name) and len(node.args) == 1)
                    or (
                        isinstance(node.func, ast.Attribute)
                        and not node.args
                        and node.func.attr not in STATEFUL_METHODS
                    )
                )
            )
        ):
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            continue  # a name of the scope already
        text = src.segment(node)
        if len(text) <= MAX_EXPRESSION_LENGTH and "\n" not in text and text not in found:
            found.append(text)
        if len(found) >= MAX_EXPRESSIONS:
            break
    return found
