"""Input values as Python source: what the probe evaluates in the sandbox and a test would write.

A `Value` is an expression (`[Interval(1, 3)]`, `Decimal('0.01')`, `'ünïcödé ✓'`) plus the import
lines its names need. Values stay text on the host because the project's classes may only be
imported inside the sandbox; the probe evaluates them there, fresh for every call.

`ValueFactory.for_annotation` turns an annotation (as source) into an ordered pool: a typical
value first, then the classic edges (empty, zero, negative, single element, large, unicode, None
where the annotation allows it), then a few values drawn from a seeded `random.Random`.
"""

from __future__ import annotations

import ast
import functools
import itertools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from selfheal.agent.newtests.edgecases.target import ClassInfo

MAX_DEPTH = 3
POOL_LIMIT = 40
ELEMENT_LIMIT = 12

_INTS = ("2", "0", "1", "-1", "3", "10", "-10", "100", "1000000000")
_FLOATS = ("1.5", "0.0", "-1.5", "0.1", "2.5", "1e+16")
_STRS = (
    "'hello world'", "''", "' '", "'a'", "'Hello, World!'", "'ünïcödé ✓'", "'a\\nb'", "'...'", "'123'",
    "'ab' * 200",
)  # fmt: skip
_BYTES = ("b'abc'", "b''", "b'\\x00\\xff'")
_DECIMALS = ("10", "0", "1", "-1", "0.01", "2.5", "-12.345", "1000000", "0.005")
_FRACTIONS = ("Fraction(1, 2)", "Fraction(0)", "Fraction(-3, 4)", "Fraction(7)")
_STD = {  # annotation name -> (import line, values)
    "Decimal": ("from decimal import Decimal", tuple(f"Decimal({d!r})" for d in _DECIMALS)),
    "Fraction": ("from fractions import Fraction", _FRACTIONS),
    "date": (
        "from datetime import date",
        ("date(2024, 3, 15)", "date(2024, 2, 29)", "date(1970, 1, 1)", "date(2023, 12, 31)"),
    ),
    "datetime": (
        "from datetime import datetime",
        ("datetime(2024, 3, 15, 12, 30)", "datetime(1970, 1, 1, 0, 0)", "datetime(2023, 12, 31, 23, 59, 59)"),
    ),
    "timedelta": (
        "from datetime import timedelta",
        ("timedelta(days=1)", "timedelta(0)", "timedelta(seconds=-1)", "timedelta(days=365)"),
    ),
}
_LISTS = {"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection", "Reversible"}
_TUPLES = {"tuple", "Tuple"}
_DICTS = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}
_SETS = {"set", "Set", "AbstractSet", "MutableSet"}
_FROZENSETS = {"frozenset", "FrozenSet"}
_UNKNOWN = {"Any", "object", "Callable", "Iterator", "Generator", "Type", "type", "TypeVar", "Self"}


@dataclass(frozen=True)
class Value:
    source: str  # a Python expression, formatted by ast.unparse
    imports: tuple[str, ...] = ()  # import lines the expression's names need
    typed: bool = True  # fits the annotation or comes from the tests: a plausible valid input

    @property
    def label(self) -> str:
        return label_of(self.source)


def value(source: str, imports: Sequence[str] = (), typed: bool = True) -> Value:
    """A value with its source normalised, so the same expression always reads the same."""
    try:
        source = ast.unparse(ast.parse(source, mode="eval"))
    except SyntaxError:
        pass
    return Value(source, tuple(sorted(set(imports))), typed)


def _joined(items: Sequence[Value], template: str, typed: bool = True) -> Value:
    imports = sorted({line for item in items for line in item.imports})
    return value(
        template.format(", ".join(i.source for i in items)), imports, typed and all(i.typed for i in items)
    )


@dataclass
class ValueFactory:
    """Value pools by annotation. `classes`: the changed file's classes (importable through
    `class_module`); `known`: values the tests construct, by callee name (`Decimal`, `Interval`)."""

    classes: dict[str, ClassInfo]
    class_module: str
    known: dict[str, list[Value]] = field(default_factory=dict)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    allow_none: bool = False  # unannotated parameters may be None (the tests pass None)

    def for_annotation(self, annotation: str | ast.expr | None, depth: int = 0) -> list[Value] | None:
        """The pool for an annotation; None when the type is unknown."""
        if annotation is None:
            return None
        node = annotation
        if isinstance(annotation, str):
            try:
                node = ast.parse(annotation, mode="eval").body
            except SyntaxError:
                return None
        if depth > MAX_DEPTH:
            return None
        pool = self._pool(node, depth)
        return _dedupe(pool)[:POOL_LIMIT] if pool else None

    def generic(self) -> list[Value]:
        """For a parameter nothing is known about: small values of common types, not trusted."""
        sources = ["0", "1", "-1", "''", "'a'", "[]", "[1, 2, 3]"] + (["None"] if self.allow_none else [])
        return [value(s, typed=False) for s in sources]

    # -- by annotation -----------------------------------------------------------------------
    def _pool(self, node: ast.expr, depth: int) -> list[Value] | None:
        if isinstance(node, ast.Constant):
            if node.value is None:
                return [value("None")]
            if isinstance(node.value, str):  # a forward reference: "Interval"
                return self.for_annotation(node.value, depth)
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # int | None
            return self._union([node.left, node.right], depth)
        if isinstance(node, ast.Subscript):
            return self._generic_alias(_name(node.value), node.slice, depth)
        name = _name(node)
        if name is None:
            return None
        return self._named(name, depth)

    def _named(self, name: str, depth: int) -> list[Value] | None:
        simple: dict[str, Callable[[], list[Value]]] = {
            "int": lambda: self._listed(_INTS, lambda: str(self.rng.randint(-50, 50))),
            "float": lambda: self._listed(_FLOATS, lambda: str(round(self.rng.uniform(-100, 100), 2))),
            "bool": lambda: [value("True"), value("False")],
            "str": lambda: self._listed(_STRS, self._random_word),
            "bytes": lambda: [value(s) for s in _BYTES],
            "None": lambda: [value("None")],
            "NoneType": lambda: [value("None")],
        }
        if name in simple:
            return simple[name]()
        if name in _STD:
            line, sources = _STD[name]
            return self._known(name) + [value(s, [line]) for s in sources]
        if name in _LISTS:
            return self._generic_alias(name, None, depth)
        if name in _DICTS or name in _SETS or name in _TUPLES or name in _FROZENSETS:
            return self._generic_alias(name, None, depth)
        if name in self.classes:
            return self._class(self.classes[name], depth)
        if name in self.known:
            return self._known(name)
        return None

    def _generic_alias(self, name: str | None, inner: ast.expr | None, depth: int) -> list[Value] | None:
        args = list(inner.elts) if isinstance(inner, ast.Tuple) else ([inner] if inner is not None else [])
        if name == "Optional" and args:
            return self._union([args[0], ast.Constant(None)], depth)
        if name == "Union":
            return self._union(args, depth)
        if name == "Literal":
            return [value(ast.unparse(a)) for a in args]
        if name == "Annotated" and args:
            return self._pool(args[0], depth)
        if name in _LISTS:
            return self._sequences(self._element(args[0] if args else None, depth), "[{}]", "[]")
        if name in _SETS:
            return self._sequences(self._element(args[0] if args else None, depth), "{{{}}}", "set()")
        if name in _FROZENSETS:
            return self._sequences(
                self._element(args[0] if args else None, depth), "frozenset({{{}}})", "frozenset()"
            )
        if name in _TUPLES:
            if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
                return self._sequences(self._element(args[0], depth), "({},)", "()")
            if not args:
                return self._sequences(self._element(None, depth), "({},)", "()")
            return self._fixed_tuple(args, depth)
        if name in _DICTS:
            keys = self._element(args[0] if args else None, depth) or []
            values = self._element(args[1] if len(args) > 1 else None, depth) or []
            return self._dicts(keys, values)
        return self._named(name, depth) if name and name not in _UNKNOWN else None

    def _element(self, node: ast.expr | None, depth: int) -> list[Value] | None:
        if node is None:
            return [value(s, typed=False) for s in ("1", "'a'", "0", "-1")]
        return self.for_annotation(node, depth + 1)

    def _union(self, options: list[ast.expr], depth: int) -> list[Value] | None:
        pools = [self.for_annotation(option, depth) for option in options]
        known = [p for p in pools if p]
        if not known:
            return None
        merged: list[Value] = []
        for index in range(max(len(p) for p in known)):  # interleave: every option gets early slots
            merged += [p[index] for p in known if index < len(p)]
        return merged

    def _listed(self, sources: Sequence[str], extra: Callable[[], str]) -> list[Value]:
        return [value(s) for s in sources] + [value(extra()) for _ in range(2)]

    def _random_word(self) -> str:
        letters = "abcdefghij XYZ"
        return repr("".join(self.rng.choice(letters) for _ in range(self.rng.randint(1, 8))))

    def _known(self, name: str) -> list[Value]:
        return list(self.known.get(name, ()))

    def _class(self, info: ClassInfo, depth: int) -> list[Value] | None:
        line = f"from {self.class_module} import {info.name}"
        if info.kind == "enum":
            return self._known(info.name) + [value(f"{info.name}.{m}", [line]) for m in info.members]
        built: list[Value] = []
        pools = []
        for param in info.fields:
            pool = self.for_annotation(param.annotation, depth + 1)
            if pool is None and param.default is None:
                return self._known(info.name) or None  # a required field we cannot fill
            pools.append(pool or [])
        typical = {p.name: pools[i][0] for i, p in enumerate(info.fields) if p.default is None}
        built.append(_construct(info, typical, line))
        for index, param in enumerate(info.fields):  # vary one field at a time
            # a field left at its default has not used its pool's first value yet
            for option in pools[index][0:3] if param.default is not None else pools[index][1:4]:
                built.append(_construct(info, {**typical, param.name: option}, line))
        known = self._known(info.name)
        mixed = []  # what the tests build and what the fields allow, taken in turn
        for index in range(max(len(known), len(built))):
            mixed += [v[index] for v in (known, built) if index < len(v)]
        return mixed

    def _sequences(self, elements: list[Value] | None, template: str, empty: str) -> list[Value] | None:
        """Empty, single, duplicate, neighbouring and seeded random pairs and triples, many, large."""
        if elements is None:
            return None
        pool = [value(empty)]
        first = elements[:ELEMENT_LIMIT]
        if not first:
            return pool
        pool += [_joined([e], template) for e in first[:3]]
        pool += [_joined([e, e], template) for e in first[:2]]
        pool += [_joined(list(pair), template) for pair in itertools.pairwise(first[:6])]
        pool += [_joined([b, a], template) for a, b in itertools.pairwise(first[:4])]
        if len(first) >= 2:
            pool += [_joined(self.rng.sample(first, 2), template) for _ in range(12)]
        if len(first) >= 3:
            pool += [_joined(self.rng.sample(first, 3), template) for _ in range(4)]
        pool.append(_joined([self.rng.choice(first) for _ in range(5)], template))
        if template == "[{}]":
            large = (
                "list(range(1000))" if first[0].source.lstrip("-").isdigit() else f"[{first[0].source}] * 100"
            )
            pool.append(value(large, first[0].imports, first[0].typed))
        return pool

    def _fixed_tuple(self, args: list[ast.expr], depth: int) -> list[Value] | None:
        pools = [self.for_annotation(a, depth + 1) for a in args]
        if any(p is None or not p for p in pools):
            return None
        typical = [p[0] for p in pools if p]
        built = [_joined(typical, "({},)" if len(typical) == 1 else "({})")]
        for index, pool in enumerate(pools):
            for option in (pool or [])[1:4]:
                items = [*typical[:index], option, *typical[index + 1 :]]
                built.append(_joined(items, "({},)" if len(items) == 1 else "({})"))
        return built

    def _dicts(self, keys: list[Value], values: list[Value]) -> list[Value]:
        pool = [value("{}")]
        hashable = [k for k in keys if not k.source.startswith(("[", "{", "set(", "list("))]
        if not hashable or not values:
            return pool
        for index in range(min(3, len(hashable))):
            pool.append(_entries([(hashable[index], values[index % len(values)])]))
        if len(hashable) >= 2:
            pool.append(_entries([(hashable[0], values[0]), (hashable[1], values[1 % len(values)])]))
            pool.append(_entries([(hashable[1], values[-1]), (hashable[0], values[0])]))
        return pool


def _entries(pairs: list[tuple[Value, Value]]) -> Value:
    imports = sorted({line for k, v in pairs for line in (*k.imports, *v.imports)})
    text = "{" + ", ".join(f"{k.source}: {v.source}" for k, v in pairs) + "}"
    return value(text, imports, all(k.typed and v.typed for k, v in pairs))


def _construct(info: ClassInfo, chosen: dict[str, Value], line: str) -> Value:
    """`Cls(a, b, c=...)`: positional until the first field left at its default, keywords after."""
    parts, positional = [], True
    for param in info.fields:
        if param.name not in chosen:
            positional = False
            continue
        text = chosen[param.name].source
        parts.append(text if positional and not param.keyword_only else f"{param.name}={text}")
    imports = {line, *(i for v in chosen.values() for i in v.imports)}
    return value(f"{info.name}({', '.join(parts)})", sorted(imports), all(v.typed for v in chosen.values()))


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # typing.List, decimal.Decimal
        return node.attr
    return None


def _dedupe(pool: list[Value]) -> list[Value]:
    seen: dict[str, Value] = {}
    for item in pool:
        seen.setdefault(item.source, item)
    return list(seen.values())


# -- labels: readable names for values, from their source ------------------------------------------

_EDGE = ("empty", "zero", "negative", "none", "large", "unicode", "whitespace", "long", "duplicate")


@functools.lru_cache(maxsize=4096)  # a probe plan labels the same few values thousands of times
def label_of(source: str) -> str:
    """A short snake_case description of a value: `[]` -> empty_list, `-1` -> negative_int,
    `[Interval(1, 2), Interval(2, 3)]` -> two_intervals, `Decimal('0')` -> zero_decimal."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return "value"
    return _describe(node)


def _describe(node: ast.expr) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        number = _number(node)
        if number is not None:
            if number == 0:
                return "zero"
            return "negative_float" if "." in ast.unparse(node) else "negative_int"
        return "negative_" + _describe(node.operand)
    if isinstance(node, ast.Constant):
        return _describe_constant(node.value)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        kind = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}[type(node)]
        return _describe_items(node.elts, kind)
    if isinstance(node, ast.Dict):
        count = len(node.keys)
        return "empty_dict" if count == 0 else ("single_entry_dict" if count == 1 else "dict")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left = node.left
        if isinstance(left, ast.Constant) and isinstance(left.value, str | bytes):
            return "long_str" if isinstance(left.value, str) else "long_bytes"
        if isinstance(left, ast.List):
            return "large_list"
    if isinstance(node, ast.Call):
        return _describe_call(node)
    if isinstance(node, ast.Attribute):  # Color.RED
        return _snake(node.attr)
    if isinstance(node, ast.Name):
        return _snake(node.id)
    return "value"


def _describe_constant(item: object) -> str:
    if item is None:
        return "none"
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        if item in (0, 1):
            return "zero" if item == 0 else "one"
        return "large_int" if abs(item) >= 10**6 else "int"
    if isinstance(item, float):
        return "zero_float" if item == 0 else ("large_float" if abs(item) >= 1e6 else "float")
    if isinstance(item, str | bytes):
        kind = "str" if isinstance(item, str) else "bytes"
        text = item if isinstance(item, str) else item.decode("latin-1")
        if not text:
            return f"empty_{kind}"
        if text.isspace():
            return f"whitespace_{kind}"
        if not text.isascii():
            return f"unicode_{kind}" if kind == "str" else "binary_bytes"
        if "\n" in text:
            return f"multiline_{kind}"
        if len(text) > 50:
            return f"long_{kind}"
        if not any(c.isalnum() for c in text):
            return f"punctuation_{kind}"
        if text.isdigit():
            return f"digit_{kind}"
        if len(text) == 1:
            return f"single_char_{kind}"
        return f"{kind}_with_spaces" if " " in text.strip() else kind
    return type(item).__name__.lower()


def _noun(node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return "none" if node.value is None else type(node.value).__name__.lower()
    if isinstance(node, ast.UnaryOp):
        return _noun(node.operand)
    if isinstance(node, ast.Call):
        return _snake(_name(node.func) or "value")
    if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
        return {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set", ast.Dict: "dict"}[type(node)]
    return _snake(_name(node) or "value")


def _describe_items(items: list[ast.expr], kind: str) -> str:
    if not items:
        return f"empty_{kind}"
    noun = _noun(items[0])
    if any(_noun(i) != noun for i in items):
        return f"mixed_{kind}"
    plural = noun if noun.endswith("s") else noun + "s"
    if len(items) == 1:
        return f"single_{noun}_{kind}" if kind != "list" else f"single_{noun}"
    texts = [ast.unparse(i) for i in items]
    if len(set(texts)) == 1:
        return f"duplicate_{plural}"
    if len(items) == 2:
        return f"two_{plural}"
    return f"many_{plural}" if len(items) >= 5 else f"three_{plural}" if len(items) == 3 else plural


def _describe_call(node: ast.Call) -> str:
    callee = _name(node.func) or "value"
    if callee in ("list", "tuple", "set", "frozenset") and not node.args:
        return f"empty_{callee}"
    if callee in ("list", "tuple") and node.args and "range" in ast.unparse(node.args[0]):
        return f"large_{callee}"
    noun = _snake(callee)
    if len(node.args) == 1 and not node.keywords:
        number = _number(node.args[0])
        if number is not None:  # Decimal('0'), Fraction(-3, 4)
            if number == 0:
                return f"zero_{noun}"
            if number < 0:
                return f"negative_{noun}"
            return f"large_{noun}" if abs(number) >= 10**6 else noun
    if not node.args and not node.keywords:
        return f"default_{noun}"
    first = node.args[0] if node.args else node.keywords[0].value
    inner = _describe(first)
    return f"{noun}_with_{inner}" if inner.startswith(_EDGE) else noun


def _number(node: ast.expr) -> float | None:
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    inner = node.operand if isinstance(node, ast.UnaryOp) else node
    if not isinstance(inner, ast.Constant) or isinstance(inner.value, bool):
        return None
    try:
        number = float(inner.value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return -number if negative else number


def _snake(name: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.strip("_")).lower()
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_") or "value"
