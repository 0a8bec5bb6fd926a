"""Mutation operators: the embedded engine's vocabulary of small repairs.

The families follow the program-repair literature (GenProg's statement edits, PAR's fix
templates, TBar's mutation patterns): operator replacement, off-by-one changes, operand and
argument swaps, name replacement, condition widening/narrowing and guards, return-value and literal
replacement, builtin swaps, call unwrapping, slice changes, and statement deletion, insertion,
duplication and moves. Each yields `Mutation`s for one suspicious statement; a prior per
mutation says how often such a change is the right repair, and the search ranks by
suspiciousness x prior.

Expression edits replace exact byte spans (an operator token, an operand) so the rest of the
line keeps its formatting; statement edits work on whole lines with the file's indentation.
"""

from __future__ import annotations

import ast
import builtins
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from selfheal.agent.repair.edits import Edit, SourceFile

# -- priors (tuned on the visible tests of the benchmark only; see evaluation/) --------------
PRIORS = {
    "comparison-operator": 1.0,
    "off-by-one": 0.85,
    "boolean-operator": 0.8,
    "arithmetic-operator": 0.75,
    "augmented-assignment": 0.75,
    "slice": 0.7,
    "builtin-swap": 0.7,
    "guard": 0.65,
    "raise-guard": 0.65,
    "operand-swap": 0.6,
    "literal": 0.55,
    "negation": 0.55,
    "condition": 0.45,
    "argument-swap": 0.45,
    "name": 0.45,
    "attribute": 0.45,
    "return-value": 0.4,
    "call-unwrap": 0.35,
    "statement-move": 0.35,
    "break-continue": 0.35,
    "statement-delete": 0.25,
    "statement-insert": 0.2,
    # fix templates (templates.py)
    "none-check": 0.55,
    "argument": 0.5,
    "constant-swap": 0.5,
    "format-string": 0.5,
    "regex": 0.5,
    "grouping": 0.45,
    "normalize": 0.4,
}

COMPARE_SYMBOLS = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
# (from, to) -> relative likelihood within the family
COMPARE_SWAPS = {
    "<": {"<=": 1.0, ">": 0.5, ">=": 0.4, "!=": 0.3, "==": 0.25},
    "<=": {"<": 1.0, ">=": 0.5, ">": 0.4, "==": 0.3, "!=": 0.25},
    ">": {">=": 1.0, "<": 0.5, "<=": 0.4, "!=": 0.3, "==": 0.25},
    ">=": {">": 1.0, "<=": 0.5, "<": 0.4, "==": 0.3, "!=": 0.25},
    "==": {"!=": 0.9, "<=": 0.35, ">=": 0.35, "<": 0.25, ">": 0.25, "is": 0.2},
    "!=": {"==": 0.9, "<": 0.3, ">": 0.3, "is not": 0.2},
    "is": {"is not": 0.9, "==": 0.4},
    "is not": {"is": 0.9, "!=": 0.4},
    "in": {"not in": 0.9},
    "not in": {"in": 0.9},
}
BINOP_SYMBOLS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.MatMult: "@",
}
BINOP_SWAPS = {
    "+": {"-": 1.0, "*": 0.3},
    "-": {"+": 1.0, "*": 0.2},
    "*": {"/": 0.7, "//": 0.6, "+": 0.4, "**": 0.3, "-": 0.2},
    "/": {"//": 0.8, "*": 0.7, "%": 0.3},
    "//": {"/": 0.8, "%": 0.6, "*": 0.4},
    "%": {"//": 0.6, "/": 0.3},
    "**": {"*": 0.7},
    "<<": {">>": 0.8},
    ">>": {"<<": 0.8},
    "&": {"|": 0.8, "^": 0.3},
    "|": {"&": 0.8, "^": 0.3},
    "^": {"|": 0.4, "&": 0.3},
}
NON_COMMUTATIVE = {"-", "/", "//", "%", "**", "<<", ">>", "@"}
FUNCTION_SWAPS = {
    "any": ("all",),
    "all": ("any",),
    "min": ("max",),
    "max": ("min",),
    "round": ("int",),
    "int": ("round",),
    "floor": ("ceil",),
    "ceil": ("floor",),
    "sorted": ("reversed",),
    "reversed": ("sorted",),
}
METHOD_SWAPS = {
    "strip": ("rstrip", "lstrip"),
    "lstrip": ("strip", "rstrip"),
    "rstrip": ("strip", "lstrip"),
    "startswith": ("endswith",),
    "endswith": ("startswith",),
    "find": ("rfind",),
    "rfind": ("find",),
    "index": ("rindex",),
    "rindex": ("index",),
    "split": ("rsplit",),
    "rsplit": ("split",),
    "lower": ("upper", "casefold"),
    "upper": ("lower",),
    "append": ("extend",),
    "extend": ("append",),
    "keys": ("values", "items"),
    "values": ("keys", "items"),
    "items": ("keys", "values"),
    "remove": ("discard",),
    "isdigit": ("isnumeric", "isdecimal", "isalnum"),
    "isalpha": ("isalnum",),
    "isalnum": ("isalpha",),
    "partition": ("rpartition",),
    "rpartition": ("partition",),
    "removeprefix": ("removesuffix",),
    "removesuffix": ("removeprefix",),
    "floor": ("ceil",),
    "ceil": ("floor",),
}
UNWRAP_CALLS = {
    "abs",
    "int",
    "float",
    "str",
    "round",
    "list",
    "tuple",
    "set",
    "sorted",
    "reversed",
    "bool",
    "len",
}
UNWRAP_METHODS = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "copy"}
ANNOTATION_DEFAULTS = {
    "int": "0",
    "float": "0.0",
    "str": '""',
    "bool": "False",
    "list": "[]",
    "dict": "{}",
    "set": "set()",
    "tuple": "()",
    "List": "[]",
    "Dict": "{}",
    "Set": "set()",
    "Tuple": "()",
    "Sequence": "[]",
    "Iterable": "[]",
    "Mapping": "{}",
}
ATOMS = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.Call,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
)
BUILTIN_NAMES = set(dir(builtins))
SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)


@dataclass(frozen=True)
class Mutation:
    family: str
    weight: float  # likelihood within the family, in (0, 1]
    edits: tuple[Edit, ...]
    description: str

    @property
    def prior(self) -> float:
        return PRIORS[self.family] * self.weight


@dataclass(frozen=True)
class Hints:
    """Evidence from the failing tests that shapes some operators."""

    expected_exceptions: tuple[str, ...] = ()


def _paren(src: SourceFile, node: ast.AST) -> str:
    text = src.segment(node)
    return text if isinstance(node, ATOMS) else f"({text})"


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class FunctionFacts:
    """What the operators need to know about the function around a statement."""

    def __init__(self, src: SourceFile, function: ast.AST | None) -> None:
        self.function = function
        self.params: list[str] = []
        self.locals: list[str] = []
        self.returns: list[ast.Return] = []
        self.conditions: list[ast.expr] = []
        self.statements: list[ast.stmt] = []
        self.strings: list[str] = []
        self.is_generator = False
        body_root = function if function is not None else src.tree
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = function.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None and arg.arg not in ("self", "cls"):
                    self.params.append(arg.arg)
        self.literal_inits: dict[str, str] = {}  # `out = []`: what a guard may return for `out`
        for node in _walk_function(body_root):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, (ast.List, ast.Dict, ast.Tuple, ast.Set, ast.Constant))
                and len(src.segment(node.value)) <= 12
            ):
                self.literal_inits.setdefault(node.targets[0].id, src.segment(node.value))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                if node.id not in self.locals and node.id not in self.params:
                    self.locals.append(node.id)
            elif isinstance(node, ast.Return):
                self.returns.append(node)
            elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
                self.conditions.append(node.test)
            elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                self.is_generator = True
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and len(node.value) <= 20
                and node.value not in self.strings
            ):
                self.strings.append(node.value)
            if isinstance(node, ast.stmt) and node is not function:
                self.statements.append(node)
        self.return_annotation = (
            function.returns if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        )

    @property
    def scope_names(self) -> list[str]:
        return self.params + self.locals

    def default_returns(self, src: SourceFile) -> list[str]:
        """Values a guard may return: simple values the function already returns, else typed."""
        values: list[str] = []
        for ret in self.returns:
            if ret.value is None:
                text = "None"
            elif (
                isinstance(ret.value, (ast.Constant, ast.List, ast.Dict, ast.Tuple, ast.Set))
                and len(src.segment(ret.value)) <= 12
            ):
                text = src.segment(ret.value)
            elif isinstance(ret.value, ast.Name) and ret.value.id in self.params:
                text = ret.value.id
            elif isinstance(ret.value, ast.Name) and ret.value.id in self.literal_inits:
                text = self.literal_inits[ret.value.id]
            else:
                continue
            if text not in values:
                values.append(text)
        annotation = self.return_annotation
        base = None
        if isinstance(annotation, ast.Name):
            base = annotation.id
        elif isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
            base = annotation.value.id
        elif isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            base = annotation.value.split("[")[0].strip()
        if base in ANNOTATION_DEFAULTS and ANNOTATION_DEFAULTS[base] not in values:
            values.append(ANNOTATION_DEFAULTS[base])
        if "None" not in values and (
            annotation is None or "None" in ast.dump(annotation) or "Optional" in ast.dump(annotation)
        ):
            values.append("None")
        return values[:4]


def _walk_function(root: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function body, not descending into nested functions or classes."""
    stack = list(ast.iter_child_nodes(root))
    while stack:
        node = stack.pop(0)
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def header_nodes(statement: ast.stmt) -> list[ast.AST]:
    """The expressions that belong to a statement's own line(s), not to its body."""
    if isinstance(statement, (ast.If, ast.While)):
        return [statement.test]
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return [statement.target, statement.iter]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [item.context_expr for item in statement.items]
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    if isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        return []
    if isinstance(statement, ast.Match):
        return [statement.subject]
    return [statement]


class ModuleFacts:
    def __init__(self, src: SourceFile) -> None:
        self.functions: list[str] = []
        self.attributes: dict[str, set[str]] = {}
        self.names: set[str] = set()
        for node in ast.walk(src.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                self.attributes.setdefault(node.value.id, set()).add(node.attr)
            elif isinstance(node, ast.Name):
                self.names.add(node.id)
            elif isinstance(node, ast.alias):
                self.names.add((node.asname or node.name).split(".")[0])
        self.definitions: dict[str, ast.stmt] = {}  # name -> the top-level assignment binding it
        for node in src.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.append(node.name)
            elif isinstance(node, ast.ClassDef):
                self.names.add(node.name)
            elif isinstance(node, ast.Assign) or (isinstance(node, ast.AnnAssign) and node.value is not None):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        self.definitions[target.id] = node


def statement_mutations(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    module: ModuleFacts,
    hints: Hints,
) -> Iterator[Mutation]:
    """Every mutation of one statement: its expressions, then the statement itself."""
    seen_nodes: set[int] = set()
    for header in header_nodes(statement):
        for node in ast.walk(header):
            if id(node) in seen_nodes:
                continue
            seen_nodes.add(id(node))
            yield from _expression_mutations(src, node, parents, facts, module)
    yield from _statement_level(src, statement, parents, facts, module, hints)


# -- expression operators ---------------------------------------------------------------------


def _operator_edit(src: SourceFile, left: ast.AST, right: ast.AST, pattern: str) -> tuple[int, int] | None:
    """Byte span of the operator token between two operands."""
    gap_start, gap_end = src.span(left)[1], src.span(right)[0]
    gap = src.data[gap_start:gap_end].decode("utf-8")
    cleaned = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), gap)
    match = re.search(pattern, cleaned)
    if not match:
        return None
    prefix = cleaned[: match.start()].encode("utf-8")
    token = cleaned[match.start() : match.end()].encode("utf-8")
    start = gap_start + len(prefix)
    return start, start + len(token)


def _symbol_pattern(symbol: str) -> str:
    if symbol in ("and", "or", "in", "is"):
        return rf"(?<![\w.]){symbol}(?!\w)"
    if symbol == "not in":
        return r"(?<![\w.])not\s+in(?!\w)"
    if symbol == "is not":
        return r"(?<![\w.])is\s+not(?!\w)"
    return rf"(?<![<>=!*/%&|^@+\-]){re.escape(symbol)}(?![<>=*/])"


def _expression_mutations(src, node, parents, facts, module) -> Iterator[Mutation]:
    path = src.path
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            symbol = COMPARE_SYMBOLS[type(op)]
            span = _operator_edit(src, operands[index], operands[index + 1], _symbol_pattern(symbol))
            if span is None:
                continue
            for new, weight in COMPARE_SWAPS.get(symbol, {}).items():
                yield Mutation(
                    "comparison-operator",
                    weight,
                    (Edit(path, *span, new),),
                    f"`{symbol}` -> `{new}` in `{_short(src.segment(node))}`",
                )
        yield from _off_by_one_sites(src, [c for c in operands], node, "comparison operand")

    elif isinstance(node, ast.BinOp):
        symbol = BINOP_SYMBOLS[type(node.op)]
        span = _operator_edit(src, node.left, node.right, _symbol_pattern(symbol))
        if span is not None:
            for new, weight in BINOP_SWAPS.get(symbol, {}).items():
                if _identity(node, new):
                    continue  # `n * 1` is `n`, which removing the constant offers more plainly
                yield Mutation(
                    "arithmetic-operator",
                    weight,
                    (Edit(path, *span, new),),
                    f"`{symbol}` -> `{new}` in `{_short(src.segment(node))}`",
                )
        if symbol in NON_COMMUTATIVE or (symbol == "+" and not _numeric(node)):
            swapped = f"{_paren(src, node.right)} {symbol} {_paren(src, node.left)}"
            yield Mutation(
                "operand-swap",
                1.0 if symbol in NON_COMMUTATIVE else 0.4,
                (Edit(path, *src.span(node), swapped),),
                f"swap operands: `{_short(src.segment(node))}` -> `{_short(swapped)}`",
            )

    elif isinstance(node, ast.AugAssign):
        symbol = BINOP_SYMBOLS[type(node.op)]
        span = _operator_edit(src, node.target, node.value, re.escape(symbol + "="))
        if span is not None:
            for new, weight in BINOP_SWAPS.get(symbol, {}).items():
                yield Mutation(
                    "augmented-assignment",
                    weight,
                    (Edit(path, *span, new + "="),),
                    f"`{symbol}=` -> `{new}=` in `{_short(src.segment(node))}`",
                )
            yield Mutation(
                "augmented-assignment",
                0.4,
                (Edit(path, *span, "="),),
                f"`{symbol}=` -> `=` in `{_short(src.segment(node))}`",
            )

    elif isinstance(node, ast.BoolOp):
        symbol = "and" if isinstance(node.op, ast.And) else "or"
        new = "or" if symbol == "and" else "and"
        spans = [
            _operator_edit(src, a, b, _symbol_pattern(symbol))
            for a, b in zip(node.values, node.values[1:], strict=False)
        ]
        if all(spans):
            yield Mutation(
                "boolean-operator",
                1.0,
                tuple(Edit(path, *s, new) for s in spans),
                f"`{symbol}` -> `{new}` in `{_short(src.segment(node))}`",
            )
        for index, value in enumerate(node.values):
            rest = [v for i, v in enumerate(node.values) if i != index]
            text = f" {symbol} ".join(
                _paren(src, v) if isinstance(v, ast.BoolOp) else src.segment(v) for v in rest
            )
            yield Mutation(
                "condition",
                0.8,
                (Edit(path, *src.span(node), text),),
                f"drop clause `{_short(src.segment(value))}` from `{_short(src.segment(node))}`",
            )

    elif isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            operand_end = src.span(node)[1]
            after_not = src.data[src.span(node)[0] + 3 : operand_end].decode("utf-8").strip()
            yield Mutation(
                "negation",
                1.0,
                (Edit(path, *src.span(node), after_not),),
                f"remove `not` from `{_short(src.segment(node))}`",
            )
        elif isinstance(node.op, ast.USub) and _int_constant(node.operand):
            value = -node.operand.value
            for new in (value + 1, value - 1):
                yield Mutation(
                    "off-by-one", 0.9, (Edit(path, *src.span(node), str(new)),), f"constant {value} -> {new}"
                )

    elif isinstance(node, ast.Constant):
        parent = parents.get(node)
        if _int_constant(node) and not (isinstance(parent, ast.UnaryOp)):
            for new in (node.value + 1, node.value - 1):
                if (
                    new == 0
                    and isinstance(parent, ast.BinOp)
                    and parent.right is node
                    and isinstance(parent.op, (ast.Add, ast.Sub))
                ):
                    continue  # `x - 0`: the off-by-one site already offers plain `x`
                yield Mutation(
                    "off-by-one",
                    1.0,
                    (Edit(path, *src.span(node), str(new)),),
                    f"constant {node.value} -> {new}",
                )
        elif isinstance(node.value, bool):
            new = str(not node.value)
            yield Mutation("literal", 1.0, (Edit(path, *src.span(node), new),), f"`{node.value}` -> `{new}`")
        elif (
            isinstance(node.value, str)
            and not isinstance(parent, ast.JoinedStr)
            and not _is_docstring(node, parents)
        ):
            for other in facts.strings[:8]:
                if other != node.value:
                    yield Mutation(
                        "literal",
                        0.4,
                        (Edit(path, *src.span(node), repr(other)),),
                        f"string {node.value!r} -> {other!r}",
                    )

    elif isinstance(node, ast.Subscript):
        if isinstance(node.slice, ast.Slice):
            yield from _slice_mutations(src, node)
        elif not isinstance(node.ctx, ast.Del):
            yield from _off_by_one_sites(src, [node.slice], node, "index")

    elif isinstance(node, ast.Call):
        yield from _call_mutations(src, node, facts, module)

    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        parent = parents.get(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            alternatives = [f for f in module.functions if f != node.id]
        elif node.id in facts.scope_names:
            alternatives = [n for n in facts.scope_names if n != node.id]
        else:
            alternatives = []
        for index, other in enumerate(alternatives[:10]):
            weight = 1.0 if index < 3 else 0.6
            yield Mutation("name", weight, (Edit(path, *src.span(node), other),), f"`{node.id}` -> `{other}`")

    elif (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and isinstance(node.ctx, ast.Load)
    ):
        parent = parents.get(node)
        if not (isinstance(parent, ast.Call) and parent.func is node):
            others = sorted(module.attributes.get(node.value.id, set()) - {node.attr})
            start = src.span(node)[1] - len(node.attr.encode())
            for other in others[:8]:
                yield Mutation(
                    "attribute",
                    1.0,
                    (Edit(path, start, src.span(node)[1], other),),
                    f"`{node.value.id}.{node.attr}` -> `{node.value.id}.{other}`",
                )

    elif isinstance(node, ast.IfExp):
        swapped = f"{src.segment(node.orelse)} if {src.segment(node.test)} else {src.segment(node.body)}"
        yield Mutation(
            "operand-swap",
            0.8,
            (Edit(path, *src.span(node), swapped),),
            f"swap branches of `{_short(src.segment(node))}`",
        )


def _identity(node: ast.BinOp, symbol: str) -> bool:
    """Would `node` with operator `symbol` just return its other operand?"""
    right = node.right.value if isinstance(node.right, ast.Constant) else None
    left = node.left.value if isinstance(node.left, ast.Constant) else None
    if symbol in ("*", "/", "//", "**") and right == 1:
        return True
    if symbol in ("+", "-") and right == 0:
        return True
    return (symbol == "*" and left == 1) or (symbol == "+" and left == 0)


def _numeric(node: ast.BinOp) -> bool:
    return any(
        isinstance(side, ast.Constant) and isinstance(side.value, (int, float))
        for side in (node.left, node.right)
    )


def _int_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _is_docstring(node: ast.Constant, parents) -> bool:
    parent = parents.get(node)
    return isinstance(parent, ast.Expr)


def _off_by_one_sites(src, nodes, context_node, where) -> Iterator[Mutation]:
    """`e` -> `e + 1` / `e - 1`, and `e +/- 1` -> `e`, for bounds, indices and comparisons."""
    for node in nodes:
        if _int_constant(node) or isinstance(node, (ast.Slice, ast.Tuple)):
            continue
        if isinstance(node, ast.Constant) or (isinstance(node, ast.UnaryOp) and _int_constant(node.operand)):
            continue
        span = src.span(node)
        text = src.segment(node)
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, (ast.Add, ast.Sub))
            and isinstance(node.right, ast.Constant)
            and node.right.value == 1
        ):
            yield Mutation(
                "off-by-one",
                0.9,
                (Edit(src.path, *span, src.segment(node.left)),),
                f"{where} `{_short(text)}` -> `{_short(src.segment(node.left))}`",
            )
            continue
        base = text if isinstance(node, (*ATOMS, ast.BinOp)) and not _low_precedence(node) else f"({text})"
        for sign in ("+", "-"):
            yield Mutation(
                "off-by-one",
                0.8,
                (Edit(src.path, *span, f"{base} {sign} 1"),),
                f"{where} `{_short(text)}` -> `{_short(base)} {sign} 1`",
            )


def _low_precedence(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(
        node.op, (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
    )


def _slice_mutations(src: SourceFile, node: ast.Subscript) -> Iterator[Mutation]:
    piece = node.slice
    path = src.path
    value = src.segment(node.value)
    bounds = [b for b in (piece.lower, piece.upper) if b is not None]
    yield from (
        Mutation("slice", m.weight, m.edits, m.description)
        for m in _off_by_one_sites(src, bounds, node, "slice bound")
    )
    for bound in bounds:
        if _int_constant(bound):
            for new in (bound.value + 1, bound.value - 1):
                yield Mutation(
                    "slice",
                    0.9,
                    (Edit(path, *src.span(bound), str(new)),),
                    f"slice bound {bound.value} -> {new}",
                )
    lower = src.segment(piece.lower) if piece.lower else ""
    upper = src.segment(piece.upper) if piece.upper else ""
    step = src.segment(piece.step) if piece.step else ""
    variants = []
    if piece.lower is not None:
        variants.append(f"{value}[:{upper}{':' + step if step else ''}]")
    if piece.upper is not None:
        variants.append(f"{value}[{lower}:{':' + step if step else ''}]")
    if piece.step is not None:
        variants.append(f"{value}[{lower}:{upper}]")
    # the bound on the other side: `x[k:]` <-> `x[:-k]`, `x[:k]` <-> `x[-k:]`
    only_lower = piece.lower is not None and piece.upper is None and piece.step is None
    only_upper = piece.upper is not None and piece.lower is None and piece.step is None
    if only_lower or only_upper:
        bound = piece.lower if only_lower else piece.upper
        negated = _negate(src, bound)
        variants += (
            [f"{value}[:{negated}]", f"{value}[{negated}:]"]
            if only_lower
            else [f"{value}[{negated}:]", f"{value}[:{negated}]"]
        )
    for text in variants:
        yield Mutation(
            "slice",
            0.6,
            (Edit(path, *src.span(node), text),),
            f"slice `{_short(src.segment(node))}` -> `{_short(text)}`",
        )


def _negate(src: SourceFile, node: ast.AST) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return src.segment(node.operand)
    return f"-{_paren(src, node)}"


def _call_mutations(src, node: ast.Call, facts, module) -> Iterator[Mutation]:
    path = src.path
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name is None:
        return
    name_span = (src.span(func)[1] - len(name.encode()), src.span(func)[1])
    swaps = FUNCTION_SWAPS.get(name, ()) if isinstance(func, ast.Name) else METHOD_SWAPS.get(name, ())
    if isinstance(func, ast.Attribute) and name in ("floor", "ceil"):
        swaps = FUNCTION_SWAPS[name]
    for other in swaps:
        yield Mutation(
            "builtin-swap", 1.0, (Edit(path, *name_span, other),), f"`{name}(...)` -> `{other}(...)`"
        )
    if name in ("sorted",) or (isinstance(func, ast.Attribute) and name == "sort"):
        reverse = [k for k in node.keywords if k.arg == "reverse"]
        if not reverse:
            end = src.span(node)[1] - 1
            sep = ", " if node.args or node.keywords else ""
            yield Mutation(
                "builtin-swap",
                0.6,
                (Edit(path, end, end, f"{sep}reverse=True"),),
                f"`{name}(...)` -> `{name}(..., reverse=True)`",
            )
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(node.args) and len(positional) >= 2:
        for first, second in itertools.pairwise(positional):
            yield Mutation(
                "argument-swap", 1.0,
                (Edit(path, *src.span(first), src.segment(second)),
                 Edit(path, *src.span(second), src.segment(first))),
                f"swap arguments `{_short(src.segment(first))}` and "
                f"`{_short(src.segment(second))}` of `{name}(...)`",
            )  # fmt: skip
    if (
        isinstance(func, ast.Name)
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    ):
        weight = 1.0 if name in UNWRAP_CALLS else 0.4
        inner = (
            _paren(src, node.args[0]) if not isinstance(node.args[0], ATOMS) else src.segment(node.args[0])
        )
        yield Mutation(
            "call-unwrap",
            weight,
            (Edit(path, *src.span(node), inner),),
            f"`{_short(src.segment(node))}` -> `{_short(inner)}`",
        )
    if isinstance(func, ast.Attribute) and name in UNWRAP_METHODS and not node.args:
        inner = src.segment(func.value)
        yield Mutation(
            "call-unwrap",
            0.8,
            (Edit(path, *src.span(node), inner),),
            f"`{_short(src.segment(node))}` -> `{_short(inner)}`",
        )
    if isinstance(func, ast.Name) and name == "range":
        yield from _off_by_one_sites(src, list(node.args), node, "range bound")
    if isinstance(func, ast.Name) and name == "len":
        yield from _off_by_one_sites(src, [node], node, "length")


# -- statement operators ----------------------------------------------------------------------


def _block_of(statement: ast.stmt, parents) -> tuple[ast.AST | None, list[ast.stmt], str]:
    parent = parents.get(statement)
    if parent is None:
        return None, [], ""
    for field_name in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, field_name, None)
        if isinstance(block, list) and statement in block:
            return parent, block, field_name
    return parent, [], ""


def _line_span(src: SourceFile, statement: ast.stmt) -> tuple[int, int]:
    start = src.line_starts[statement.lineno - 1]
    last = statement.end_lineno
    end = src.line_starts[last] if last < len(src.line_starts) else len(src.data)
    return start, end


def _reindent(text: str, old: str, new: str) -> str:
    lines = text.splitlines(keepends=True)
    out = []
    for line in lines:
        out.append(new + line[len(old) :] if line.startswith(old) else line)
    result = "".join(out)
    return result if result.endswith("\n") else result + "\n"


def _indent_unit(src: SourceFile) -> str:
    for line in src.text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and line != stripped:
            indent = line[: len(line) - len(stripped)]
            return "\t" if indent.startswith("\t") else " " * min(len(indent), 4)
    return "    "


def _statement_level(src, statement, parents, facts: FunctionFacts, module, hints) -> Iterator[Mutation]:
    path = src.path
    indent = src.indent_of(statement.lineno)
    if src.line_text(statement.lineno)[len(indent) :] != src.segment(statement).splitlines()[0]:
        return  # shares its line with other code (`if x: y`); whole-line edits would break it
    start, end = _line_span(src, statement)
    parent, block, _ = _block_of(statement, parents)
    unit = _indent_unit(src)
    inside_function = facts.function is not None and isinstance(
        facts.function, (ast.FunctionDef, ast.AsyncFunctionDef)
    )
    in_loop = _inside_loop(statement, parents, facts.function)

    # guards before the statement
    if inside_function and not isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
        used = []
        for root in header_nodes(statement):
            for node in ast.walk(root):
                if (
                    isinstance(node, ast.Name)
                    and isinstance(node.ctx, ast.Load)
                    and node.id in facts.scope_names
                    and node.id not in used
                ):
                    used.append(node.id)
        exits = [
            ("return" if facts.is_generator else f"return {value}")
            for value in (facts.default_returns(src) or ["None"])
        ]
        if facts.is_generator:
            exits = ["return"]
        if in_loop:
            exits.append("continue")
        for name in used[:4]:
            for condition in (f"not {name}", f"{name} is None"):
                for exit_ in exits:
                    text = f"{indent}if {condition}:\n{indent}{unit}{exit_}\n"
                    yield Mutation(
                        "guard",
                        1.0 if condition.startswith("not") else 0.8,
                        (Edit(path, start, start, text),),
                        f"guard `if {condition}: {exit_}` before line {statement.lineno}",
                    )
        for exception in hints.expected_exceptions:
            if exception not in BUILTIN_NAMES and exception not in module.names:
                continue
            for name in used[:4]:
                for condition in (f"not {name}", f"{name} is None", f"{name} < 0", f"{name} <= 0"):
                    text = (
                        f"{indent}if {condition}:\n{indent}{unit}raise {exception}({('invalid ' + name)!r})\n"
                    )
                    yield Mutation(
                        "raise-guard",
                        1.0,
                        (Edit(path, start, start, text),),
                        f"guard `if {condition}: raise {exception}` before line {statement.lineno}",
                    )

    # deletion
    if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        replacement = "" if len(block) > 1 else f"{indent}pass\n"
        weight = 1.0 if isinstance(statement, SIMPLE_STATEMENTS) else 0.6
        yield Mutation(
            "statement-delete",
            weight,
            (Edit(path, start, end, replacement),),
            f"delete line {statement.lineno} `{_short(src.line_text(statement.lineno).strip())}`",
        )

    # move out of its block (an over-indented line) when it is the block's last statement
    if (
        block
        and block[-1] is statement
        and len(block) > 1
        and isinstance(parent, (ast.For, ast.While, ast.If, ast.With))
        and not getattr(parent, "orelse", None)
        and isinstance(statement, SIMPLE_STATEMENTS)
    ):
        outer = src.indent_of(parent.lineno)
        moved = _reindent(src.data[start:end].decode("utf-8"), indent, outer)
        yield Mutation(
            "statement-move",
            1.0,
            (Edit(path, start, end, moved),),
            f"move line {statement.lineno} out of the `{type(parent).__name__.lower()}` block",
        )

    # swap with the next statement of the same block
    if block:
        position = block.index(statement)
        if position + 1 < len(block):
            following = block[position + 1]
            if isinstance(following, SIMPLE_STATEMENTS) and isinstance(statement, SIMPLE_STATEMENTS):
                f_start, f_end = _line_span(src, following)
                if f_start == end:
                    text = src.data[f_start:f_end].decode("utf-8") + src.data[start:end].decode("utf-8")
                    yield Mutation(
                        "statement-move",
                        0.8,
                        (Edit(path, start, f_end, text),),
                        f"swap lines {statement.lineno} and {following.lineno}",
                    )

    # break <-> continue
    if isinstance(statement, (ast.Break, ast.Continue)):
        new = "continue" if isinstance(statement, ast.Break) else "break"
        yield Mutation(
            "break-continue",
            1.0,
            (Edit(path, *src.span(statement), new),),
            f"`{src.segment(statement)}` -> `{new}` at line {statement.lineno}",
        )

    # insertion / duplication of another simple statement of the function, before or after
    if inside_function and facts.statements:
        donors = [
            s
            for s in facts.statements
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr))
            and s.lineno == s.end_lineno
            and not isinstance(getattr(s, "value", None), ast.Constant)
        ]
        donors.sort(key=lambda s: abs(s.lineno - statement.lineno))
        for donor in donors[:6]:
            text = indent + src.segment(donor) + "\n"
            yield Mutation(
                "statement-insert",
                1.0,
                (Edit(path, start, start, text),),
                f"insert `{_short(src.segment(donor))}` before line {statement.lineno}",
            )
            yield Mutation(
                "statement-insert",
                0.9,
                (Edit(path, end, end, text),),
                f"insert `{_short(src.segment(donor))}` after line {statement.end_lineno}",
            )

    # add a clause to a condition (widen / narrow)
    if isinstance(statement, (ast.If, ast.While)):
        test = statement.test
        base = (
            _paren(src, test)
            if isinstance(test, (ast.BoolOp, ast.IfExp, ast.NamedExpr))
            else src.segment(test)
        )
        clauses = []
        for other in facts.conditions:
            if other is not test and isinstance(other, ast.Compare):
                clause = src.segment(other)
                if clause not in clauses and clause != src.segment(test):
                    clauses.append(clause)
        for name in [n.id for n in ast.walk(test) if isinstance(n, ast.Name) and n.id in facts.scope_names][
            :2
        ]:
            clauses.append(f"{name} is not None")
        for clause in clauses[:5]:
            for joiner in ("and", "or"):
                text = f"{base} {joiner} {clause}"
                yield Mutation(
                    "condition",
                    0.6,
                    (Edit(path, *src.span(test), text),),
                    f"condition `{_short(src.segment(test))}` -> `{_short(text)}`",
                )
        negated = (
            f"not {_paren(src, test)}" if not isinstance(test, ast.Compare) else f"not {src.segment(test)}"
        )
        yield Mutation(
            "negation",
            0.7,
            (Edit(path, *src.span(test), negated),),
            f"negate condition `{_short(src.segment(test))}`",
        )

    # return value replacement
    if isinstance(statement, ast.Return) and statement.value is not None:
        current = src.segment(statement.value)
        seen = {current}
        for other in facts.returns:
            if other.value is not None and src.segment(other.value) not in seen:
                seen.add(src.segment(other.value))
                yield Mutation(
                    "return-value",
                    1.0,
                    (Edit(path, *src.span(statement.value), src.segment(other.value)),),
                    f"return `{_short(src.segment(other.value))}` instead of `{_short(current)}`",
                )


def _inside_loop(statement, parents, function) -> bool:
    node = parents.get(statement)
    while node is not None and node is not function:
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            return True
        node = parents.get(node)
    return False


def parent_map(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def statement_at(src: SourceFile, line: int, parents: dict[ast.AST, ast.AST]) -> ast.stmt | None:
    """The innermost statement whose own header covers `line`."""
    best = None
    for node in ast.walk(src.tree):
        if not isinstance(node, ast.stmt):
            continue
        header = header_nodes(node)
        if not header:
            covers = node.lineno == line
        else:
            first = min(getattr(h, "lineno", node.lineno) for h in header)
            last = max(getattr(h, "end_lineno", node.lineno) or node.lineno for h in header)
            covers = min(first, node.lineno) <= line <= last
        if covers and (best is None or _depth(node, parents) > _depth(best, parents)):
            best = node
    return best


def _depth(node, parents) -> int:
    depth = 0
    while node in parents:
        node = parents[node]
        depth += 1
    return depth


def enclosing_function(statement: ast.stmt, parents) -> ast.AST | None:
    node = parents.get(statement)
    while node is not None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
        node = parents.get(node)
    return None
