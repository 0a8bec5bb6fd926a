"""Which inputs to try: the plan of probe calls, deterministic for a seed.

Per parameter a pool of values (what the tests pass, small variations of it, then values from
the annotation). The plan starts from the calls the tests make (bases), varies one parameter at
a time from each base, round-robin over the pools so every parameter gets its edges early, and
fills the rest of the budget with seeded random combinations.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass

from selfheal.agent.newtests.edgecases.harvest import TestEvidence
from selfheal.agent.newtests.edgecases.target import (
    CLASSMETHOD,
    FUNCTION,
    PROPERTY,
    STATICMETHOD,
    FunctionInfo,
)
from selfheal.agent.newtests.edgecases.values import Value, ValueFactory, value

RECEIVER = "self"  # the dimension of the object a method runs on
MAX_BASES = 4
POOL_CAP = 30


@dataclass(frozen=True)
class Probe:
    id: int
    text: str  # the call as a test writes it: `merge([Interval(1, 2)])`
    values: tuple[tuple[str, Value], ...]  # parameter -> argument; left-out parameters keep defaults
    receiver: Value | None = None
    label: str = "value"  # what the input looks like, for the test's name
    existing: bool = False  # the existing tests make this very call
    expects: str | None = None  # the exception the existing test expects from it

    @property
    def typed(self) -> bool:
        """Every argument fits its annotation or comes from the tests: a valid-looking input."""
        parts = [v for _, v in self.values] + ([self.receiver] if self.receiver else [])
        return all(v.typed for v in parts)

    @property
    def imports(self) -> tuple[str, ...]:
        parts = [v for _, v in self.values] + ([self.receiver] if self.receiver else [])
        return tuple(sorted({line for v in parts for line in v.imports}))

    def job(self, info: FunctionInfo) -> dict[str, object]:
        """The probe script's view of this input."""
        receiver = self.receiver.source if self.receiver else None
        if info.binding in (CLASSMETHOD, STATICMETHOD):
            receiver = info.bind
        args, kwargs = _split(info, dict(self.values))
        return {
            "id": self.id,
            "text": self.text,
            "receiver": receiver,
            "call": info.binding != PROPERTY,
            "args": [v.source for v in args],
            "kwargs": [[k, v.source] for k, v in kwargs],
            "imports": list(self.imports),
        }


def call_text(info: FunctionInfo, values: dict[str, Value], receiver: Value | None) -> str:
    args, kwargs = _split(info, values)
    joined = ", ".join([v.source for v in args] + [f"{k}={v.source}" for k, v in kwargs])
    if info.binding == FUNCTION:
        return f"{info.name}({joined})"
    if info.binding in (CLASSMETHOD, STATICMETHOD):
        return f"{info.bind}.{info.name}({joined})"
    owner = receiver.source if receiver else f"{info.bind}()"
    node = ast.parse(owner, mode="eval").body
    if not isinstance(node, ast.Call | ast.Name | ast.Attribute | ast.Subscript):
        owner = f"({owner})"
    return f"{owner}.{info.name}" if info.binding == PROPERTY else f"{owner}.{info.name}({joined})"


def _split(info: FunctionInfo, values: dict[str, Value]) -> tuple[list[Value], list[tuple[str, Value]]]:
    """Positional arguments up to the first parameter left at its default, keywords after."""
    args: list[Value] = []
    kwargs: list[tuple[str, Value]] = []
    positional = True
    for param in info.params:
        if param.name not in values:
            positional = False
            continue
        if positional and not param.keyword_only:
            args.append(values[param.name])
        else:
            kwargs.append((param.name, values[param.name]))
    return args, kwargs


def plan(
    info: FunctionInfo, evidence: TestEvidence, factory: ValueFactory, rng: random.Random, limit: int
) -> list[Probe]:
    needs_receiver = info.binding not in (FUNCTION, CLASSMETHOD, STATICMETHOD)
    cap = max(POOL_CAP, limit // max(1, len(info.params) + needs_receiver))
    pools = {p.name: _pool(p.name, p.annotation, p.default, evidence, factory, cap) for p in info.params}
    if needs_receiver:
        pools[RECEIVER] = _receivers(info, evidence, factory)[:cap]
        if not pools[RECEIVER]:
            return []
    required = [p.name for p in info.params if p.default is None]
    if any(not pools[name] for name in required):
        return []
    planner = _Planner(info, limit)
    bases: list[dict[str, Value]] = []
    for call in evidence.calls:
        chosen = dict(call.values)
        if needs_receiver:
            chosen[RECEIVER] = call.receiver or pools[RECEIVER][0]
        if all(name in chosen for name in required):
            # with an object of our choosing the call is no longer the test's own
            own = not needs_receiver or call.receiver is not None
            label = "existing" if own else _label(info, chosen, list(chosen))
            planner.add(chosen, label, existing=own, expects=call.expects)
            if call.expects is None and chosen not in bases:
                bases.append(chosen)
    if not bases:
        typical = {name: pools[name][0] for name in required}
        if needs_receiver:
            typical[RECEIVER] = pools[RECEIVER][0]
        bases.append(typical)
        planner.add(typical, _label(info, typical, list(typical)))
    bases = bases[:MAX_BASES]
    dimensions = [
        d for d in [p.name for p in info.params] + ([RECEIVER] if needs_receiver else []) if pools[d]
    ]
    depth = max((len(pools[d]) for d in dimensions), default=0)
    budget = int(limit * 0.75)
    for index in range(depth):  # one parameter at a time, edges of every parameter first
        for base in bases:
            for dimension in dimensions:
                if index < len(pools[dimension]) and len(planner.probes) < budget:
                    varied = {**base, dimension: pools[dimension][index]}
                    planner.add(varied, _label(info, varied, [dimension]))
    attempts = 0
    while len(planner.probes) < limit and attempts < limit * 5 and dimensions:
        attempts += 1
        base = dict(rng.choice(bases))
        chosen_dims = rng.sample(dimensions, min(len(dimensions), rng.randint(1, 2)))
        for dimension in chosen_dims:
            base[dimension] = rng.choice(pools[dimension])
        planner.add(base, _label(info, base, sorted(chosen_dims, key=dimensions.index)))
    return planner.probes


class _Planner:
    def __init__(self, info: FunctionInfo, limit: int) -> None:
        self.info = info
        self.limit = limit
        self.probes: list[Probe] = []
        self._seen: dict[str, int] = {}

    def add(
        self, chosen: dict[str, Value], label: str, *, existing: bool = False, expects: str | None = None
    ) -> None:
        receiver = chosen.get(RECEIVER)
        values = {k: v for k, v in chosen.items() if k != RECEIVER}
        text = call_text(self.info, values, receiver)
        if text in self._seen or len(self.probes) >= self.limit:
            return
        order = [p.name for p in self.info.params if p.name in values]
        probe = Probe(
            id=len(self.probes),
            text=text,
            values=tuple((name, values[name]) for name in order),
            receiver=receiver,
            label=label,
            existing=existing,
            expects=expects,
        )
        self._seen[text] = probe.id
        self.probes.append(probe)


def _label(info: FunctionInfo, chosen: dict[str, Value], dimensions: list[str]) -> str:
    named = [d for d in dimensions if d in chosen][:2]
    several = len(info.params) > 1 or (RECEIVER in chosen and info.params)
    parts = []
    for dimension in named:
        label = chosen[dimension].label
        parts.append(f"{dimension}_{label}" if several and dimension != RECEIVER else label)
    return "_".join(parts) or "default"


def _pool(
    name: str,
    annotation: str | None,
    default: str | None,
    evidence: TestEvidence,
    factory: ValueFactory,
    cap: int,
) -> list[Value]:
    """The tests' own values first, then their neighbours and the annotation's values taken in
    turn, so neither crowds the other out of the cap."""
    harvested = [v for call in evidence.calls for n, v in call.values if n == name]
    variations = [v for item in harvested[:6] for v in _variations(item)]
    typed = factory.for_annotation(annotation)
    if typed is None:
        example = next((v for v in harvested if v.typed), None)
        inferred = _infer(example.source) if example else (_infer(default) if default else None)
        typed = factory.for_annotation(inferred) if inferred is not None else None
        if typed is None:
            typed = factory.generic()
        elif evidence.passes_none:
            typed = [*typed, value("None")]
    pool = list(harvested)
    for index in range(max(len(variations), len(typed))):
        pool += [v[index] for v in (typed, variations) if index < len(v)]
    unique: dict[str, Value] = {}
    for item in pool:
        unique.setdefault(item.source, item)
    return list(unique.values())[:cap]


def _receivers(info: FunctionInfo, evidence: TestEvidence, factory: ValueFactory) -> list[Value]:
    assert info.owner is not None
    harvested = [call.receiver for call in evidence.calls if call.receiver is not None]
    built = factory.for_annotation(info.owner.name) or []
    unique: dict[str, Value] = {}
    for item in [*harvested, *built]:
        unique.setdefault(item.source, item)
    return list(unique.values())


def _variations(item: Value) -> list[Value]:
    """Neighbours of a value the tests use: off-by-one numbers, reordered and shortened lists."""
    try:
        node = ast.parse(item.source, mode="eval").body
    except SyntaxError:
        return []
    made: list[str] = []
    number = node.operand if isinstance(node, ast.UnaryOp) else node
    if isinstance(number, ast.Constant) and type(number.value) is int:
        current = ast.literal_eval(node)
        made += [str(current - 1), str(current + 1), str(-current)]
    if isinstance(node, ast.List | ast.Tuple) and node.elts:
        items = [ast.unparse(e) for e in node.elts]
        wrap = "[{}]" if isinstance(node, ast.List) else "({},)"
        made.append(wrap.format(", ".join(reversed(items))))
        made.append(wrap.format(", ".join(items[1:])) if len(items) > 1 else wrap.format(""))
        made += [wrap.format(e) for e in items]
        made.append(wrap.format(", ".join([items[0], *items])))
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        made += [repr(node.value.upper()), repr(f" {node.value} "), repr(node.value[:-1])]
        if node.value.strip().lstrip("-").isdigit():  # a number as text: its neighbours too
            number = int(node.value)
            made += [repr(str(number - 1)), repr(str(number + 1)), repr(str(-number)), "'0'"]
    return [value(m, item.imports, item.typed) for m in made]


def _infer(source: str) -> ast.expr | None:
    """An annotation for a value the tests pass to an unannotated parameter: `'a'` -> str,
    `[Interval(1, 3)]` -> list[Interval]."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return None
    return _annotation_of(node)


def _annotation_of(node: ast.expr) -> ast.expr | None:
    if isinstance(node, ast.UnaryOp):
        return _annotation_of(node.operand)
    if isinstance(node, ast.Constant):
        if node.value is None:
            return None
        return ast.Name(type(node.value).__name__)
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        return ast.Name(name) if name else None
    if isinstance(node, ast.List | ast.Set) or (isinstance(node, ast.Tuple) and node.elts):
        kind = {ast.List: "list", ast.Set: "set", ast.Tuple: "tuple"}[type(node)]
        inner = _annotation_of(node.elts[0]) if node.elts else None
        if inner is None:
            return ast.Name(kind)
        if kind == "tuple":
            return ast.Subscript(ast.Name("tuple"), ast.Tuple([inner, ast.Constant(...)]))
        return ast.Subscript(ast.Name(kind), inner)
    if isinstance(node, ast.Dict):
        if not node.keys or node.keys[0] is None:
            return ast.Name("dict")
        key, item = _annotation_of(node.keys[0]), _annotation_of(node.values[0])
        if key is None or item is None:
            return ast.Name("dict")
        return ast.Subscript(ast.Name("dict"), ast.Tuple([key, item]))
    return None
