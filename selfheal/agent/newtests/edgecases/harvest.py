"""What the existing tests already say about the changed function, read with `ast`.

- the calls they make to it, with their arguments mapped to parameter names (inputs the authors
  thought worth checking, and the exact calls a generated test must not repeat);
- the values they construct (`Interval(1, 3)`, `Decimal('50')`), by callee name: a pool for
  parameters of those types;
- where they import names from (`from intervals import Interval`), so a generated test imports
  the way the project's own tests do;
- which exceptions they expect from it (`pytest.raises(ValueError)`).

Only "constant-ish" expressions are taken: literals, containers, and calls of imported names
with constant-ish arguments, after substituting `pytest.mark.parametrize` rows and local
variables assigned once. Anything else (fixtures, loops, computed values) is left alone.
"""

from __future__ import annotations

import ast
import copy
import itertools
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from selfheal.agent.newtests.edgecases.target import CLASSMETHOD, PROPERTY, STATICMETHOD, FunctionInfo
from selfheal.agent.newtests.edgecases.values import Value, value

MAX_SOURCE = 400
MAX_ROWS = 30
MAX_CALLS = 200
MAX_CONSTRUCTED = 16
_BUILTIN_CALLS = frozenset(
    ("set", "frozenset", "list", "tuple", "dict", "float", "int", "str", "bytes", "complex", "range")
)
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


@dataclass(frozen=True)
class TestCall:
    """One call of the function in the existing tests."""

    __test__ = False

    values: tuple[tuple[str, Value], ...]  # parameter name -> argument
    receiver: Value | None = None  # the object a method was called on, when it is constant-ish
    expects: str | None = None  # the exception the test expects from the call


@dataclass(frozen=True)
class TestEvidence:
    __test__ = False

    calls: tuple[TestCall, ...] = ()
    constructed: Mapping[str, tuple[Value, ...]] = field(default_factory=dict)  # "Decimal" -> values
    known_names: Mapping[str, str] = field(default_factory=dict)  # "Interval" -> "intervals"
    bind_modules: tuple[str, ...] = ()  # where the tests import the function (or its class) from
    expected: frozenset[str] = frozenset()  # exception names the tests expect from the function

    @property
    def passes_none(self) -> bool:
        return any(v.source == "None" for call in self.calls for _, v in call.values)


@dataclass(frozen=True)
class _Binding:
    line: str  # the import line that binds the name
    original: str  # the imported object's own name ("merge" for `from x import merge as m`)
    is_module: bool


def harvest(tests: Mapping[str, str], info: FunctionInfo) -> TestEvidence:
    calls: list[TestCall] = []
    constructed: dict[str, list[Value]] = {}
    known: dict[str, str] = {}
    modules: Counter[str] = Counter()
    for path in sorted(tests):
        try:
            tree = ast.parse(tests[path])
        except (SyntaxError, ValueError):
            continue
        bindings = _bindings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    known.setdefault(alias.name, node.module)
                    if alias.name == info.bind:
                        modules[node.module] += 1
        reader = _FileReader(info, bindings, _single_assignments(tree.body))
        reader.read(tree)
        calls += reader.calls
        for name, found in reader.constructed.items():
            constructed.setdefault(name, []).extend(found)
    unique_calls = list(dict.fromkeys(calls))[:MAX_CALLS]
    return TestEvidence(
        calls=tuple(unique_calls),
        constructed={
            name: tuple(_unique(found)[:MAX_CONSTRUCTED]) for name, found in sorted(constructed.items())
        },
        known_names=known,
        bind_modules=tuple(m for m, _ in sorted(modules.items(), key=lambda item: (-item[1], item[0]))),
        expected=frozenset(c.expects for c in unique_calls if c.expects),
    )


def _unique(found: list[Value]) -> list[Value]:
    seen: dict[str, Value] = {}
    for item in found:
        seen.setdefault(item.source, item)
    return list(seen.values())


def _bindings(tree: ast.Module) -> dict[str, _Binding]:
    found: dict[str, _Binding] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = _Binding(f"import {alias.name} as {alias.asname}", alias.name, True)
                else:
                    top = alias.name.split(".")[0]
                    found[top] = _Binding(f"import {alias.name}", top, True)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if alias.name == "*":
                    continue
                bound = alias.asname or alias.name
                suffix = f" as {alias.asname}" if alias.asname else ""
                # a lower-case name may be a submodule; constant-ish use decides, not this flag
                found[bound] = _Binding(f"from {node.module} import {alias.name}{suffix}", alias.name, False)
    return found


def _single_assignments(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """Names assigned exactly once in `body` (not in nested functions), with their value."""
    counts: Counter[str] = Counter()
    values: dict[str, ast.expr] = {}

    def visit(nodes: list[ast.stmt]) -> None:
        for statement in nodes:
            for node in _walk_no_defs(statement):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        for name in _target_names(target):
                            counts[name] += 1
                        if isinstance(target, ast.Name):
                            values[target.id] = node.value
                elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.With | ast.NamedExpr):
                    targets = (
                        [node.target]
                        if not isinstance(node, ast.With)
                        else [i.optional_vars for i in node.items if i.optional_vars]
                    )
                    for target in targets:
                        for name in _target_names(target):
                            counts[name] += 2 if not isinstance(node, ast.AnnAssign) else 1
                    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                        values[node.target.id] = node.value

    visit(body)
    return {name: node for name, node in values.items() if counts[name] == 1}


def _walk_no_defs(node: ast.AST) -> Iterator[ast.AST]:
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            yield from _walk_no_defs(child)


def _target_names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


class _FileReader:
    def __init__(self, info: FunctionInfo, bindings: dict[str, _Binding], module_env: dict[str, ast.expr]):
        self.info = info
        self.bindings = bindings
        self.module_env = module_env
        self.calls: list[TestCall] = []
        self.constructed: dict[str, list[Value]] = {}

    def read(self, tree: ast.Module) -> None:
        for node in tree.body:
            self._definition(node)

    def _definition(self, node: ast.stmt) -> None:
        if isinstance(node, ast.ClassDef):
            for inner in node.body:
                self._definition(inner)
            return
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return
        local = _single_assignments(node.body)
        for row in _parametrize_rows(node):
            env = {**self.module_env, **local, **row}
            for statement in node.body:
                self._visit(statement, env, None)

    def _visit(self, node: ast.AST, env: dict[str, ast.expr], expects: str | None) -> None:
        if isinstance(node, ast.With | ast.AsyncWith):
            inner = expects
            for item in node.items:
                inner = _raises(item.context_expr) or inner
                self._visit(item.context_expr, env, expects)
            for statement in node.body:
                self._visit(statement, env, inner)
            return
        if isinstance(node, ast.Call):
            self._call(node, env, expects)
        elif (
            isinstance(node, ast.Attribute) and self.info.binding == PROPERTY and node.attr == self.info.name
        ):
            receiver = self._receiver(node.value, env)
            if receiver is not None:
                self.calls.append(TestCall((), receiver, expects))
        for child in ast.iter_child_nodes(node):
            self._visit(child, env, expects)

    def _call(self, node: ast.Call, env: dict[str, ast.expr], expects: str | None) -> None:
        func = node.func
        constant = self.constant(node, env, trusted=expects is None)  # built to be refused: untrusted
        if constant is not None:
            name = _last_name(func)
            # classes by convention: what the tests build to pass around (Interval(1, 3))
            if name[:1].isupper() and name != self.info.name:
                self.constructed.setdefault(name, []).append(constant)
        info = self.info
        if info.owner is None:
            if not self._is_function(func):
                return
            receiver = None
            trusted = True
        else:
            if not isinstance(func, ast.Attribute) or func.attr != info.name or info.binding == PROPERTY:
                return
            if isinstance(func.value, ast.Name) and self._binds(func.value.id, info.owner.name):
                if info.binding not in (CLASSMETHOD, STATICMETHOD):
                    return  # Cls.method(obj, ...): the object is an argument here
                receiver, trusted = None, True
            else:
                receiver = self._receiver(func.value, env)
                trusted = receiver is not None
                if info.binding in (CLASSMETHOD, STATICMETHOD):
                    receiver = None
        values = self._arguments(node, env, trusted and expects is None)
        if values is not None:
            self.calls.append(TestCall(values, receiver, expects))

    def _is_function(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Name):
            bound = self.bindings.get(func.id)
            return bound.original == self.info.name if bound else func.id == self.info.name
        if (
            isinstance(func, ast.Attribute)
            and func.attr == self.info.name
            and isinstance(func.value, ast.Name)
        ):
            bound = self.bindings.get(func.value.id)
            return bound is not None and (bound.is_module or bound.original[:1].islower())
        return False

    def _binds(self, name: str, original: str) -> bool:
        bound = self.bindings.get(name)
        return bound.original == original if bound else False

    def _receiver(self, node: ast.expr, env: dict[str, ast.expr]) -> Value | None:
        found = self.constant(node, env)
        if found is None or self.info.owner is None:
            return None
        resolved = ast.parse(found.source, mode="eval").body
        if isinstance(resolved, ast.Call) and self._binds(_last_name(resolved.func), self.info.owner.name):
            return found
        return None

    def _arguments(
        self, node: ast.Call, env: dict[str, ast.expr], trusted: bool
    ) -> tuple[tuple[str, Value], ...] | None:
        params = self.info.params
        positional = [p for p in params if not p.keyword_only]
        if len(node.args) > len(positional) or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        mapped: dict[str, Value] = {}
        for param, arg in zip(positional, node.args, strict=False):
            found = self.constant(arg, env, trusted)
            if found is None:
                return None
            mapped[param.name] = found
        names = {p.name for p in params}
        for keyword in node.keywords:
            if keyword.arg is None or keyword.arg not in names:
                return None
            found = self.constant(keyword.value, env, trusted)
            if found is None:
                return None
            mapped[keyword.arg] = found
        return tuple((p.name, mapped[p.name]) for p in params if p.name in mapped)

    # -- constant-ish expressions ------------------------------------------------------------
    def constant(self, node: ast.expr, env: dict[str, ast.expr], trusted: bool = True) -> Value | None:
        imports: set[str] = set()
        resolved = self._resolve(node, env, imports, 0)
        if resolved is None:
            return None
        source = ast.unparse(resolved)
        if len(source) > MAX_SOURCE:
            return None
        return value(source, sorted(imports), trusted)

    def _resolve(
        self, node: ast.expr, env: dict[str, ast.expr], imports: set[str], depth: int
    ) -> ast.expr | None:
        if depth > 8:
            return None
        again = lambda child: self._resolve(child, env, imports, depth + 1)  # noqa: E731
        if isinstance(node, ast.Constant):
            return node if not isinstance(node.value, type(Ellipsis)) else None
        if isinstance(node, ast.Name):
            if node.id in env:
                return self._resolve(
                    env[node.id], {k: v for k, v in env.items() if k != node.id}, imports, depth + 1
                )
            bound = self.bindings.get(node.id)
            if bound is None:
                return None
            imports.add(bound.line)
            return node
        if isinstance(node, ast.Attribute):
            if not isinstance(node.value, ast.Name | ast.Attribute):
                return None
            inner = again(node.value)
            return ast.Attribute(inner, node.attr, ast.Load()) if inner is not None else None
        if isinstance(node, ast.Call):
            if (
                isinstance(node.func, ast.Name)
                and node.func.id in _BUILTIN_CALLS
                and node.func.id not in self.bindings
            ):
                func: ast.expr | None = node.func
            elif isinstance(node.func, ast.Name | ast.Attribute):
                func = again(node.func)
            else:
                return None
            if func is None or any(isinstance(a, ast.Starred) for a in node.args):
                return None
            args = [again(a) for a in node.args]
            keywords = [(k.arg, again(k.value)) for k in node.keywords]
            if any(a is None for a in args) or any(k is None or v is None for k, v in keywords):
                return None
            return ast.Call(func, args, [ast.keyword(k, v) for k, v in keywords])
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return None
            items = [again(e) for e in node.elts]
            if any(i is None for i in items):
                return None
            made = copy.copy(node)
            made.elts = items  # type: ignore[assignment]
            return made
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                return None
            keys = [again(k) for k in node.keys if k is not None]
            values = [again(v) for v in node.values]
            if any(k is None for k in keys) or any(v is None for v in values):
                return None
            return ast.Dict(keys, values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = again(node.operand)
            return ast.UnaryOp(node.op, operand) if operand is not None else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
            left, right = again(node.left), again(node.right)
            return ast.BinOp(left, node.op, right) if left is not None and right is not None else None
        return None


def _raises(node: ast.expr) -> str | None:
    """`pytest.raises(ValueError)` or `raises((KeyError, IndexError))` -> the first name."""
    if not isinstance(node, ast.Call) or _last_name(node.func) != "raises" or not node.args:
        return None
    first = node.args[0]
    if isinstance(first, ast.Tuple) and first.elts:
        first = first.elts[0]
    return _last_name(first) or None


def _parametrize_rows(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[dict[str, ast.expr]]:
    tables: list[list[dict[str, ast.expr]]] = []
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call) or _last_name(decorator.func) != "parametrize":
            continue
        if len(decorator.args) < 2:
            continue
        names_node, rows_node = decorator.args[0], decorator.args[1]
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [n.strip() for n in names_node.value.split(",") if n.strip()]
        elif isinstance(names_node, ast.List | ast.Tuple) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names_node.elts
        ):
            names = [e.value for e in names_node.elts]  # type: ignore[attr-defined]
        else:
            continue
        if not isinstance(rows_node, ast.List | ast.Tuple):
            continue
        table = []
        for row in rows_node.elts:
            if isinstance(row, ast.Call) and _last_name(row.func) == "param":
                items = list(row.args)
            elif len(names) == 1:
                items = [row]
            elif isinstance(row, ast.Tuple | ast.List):
                items = list(row.elts)
            else:
                continue
            if len(items) == len(names):
                table.append(dict(zip(names, items, strict=True)))
        if table:
            tables.append(table)
    if not tables:
        return [{}]
    rows = []
    for combination in itertools.islice(itertools.product(*tables), MAX_ROWS):
        merged: dict[str, ast.expr] = {}
        for part in combination:
            merged.update(part)
        rows.append(merged)
    return rows
