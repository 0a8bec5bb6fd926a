"""The `Mutation` value and its priors, and the facts and AST helpers every operator and template uses.

`FunctionFacts` and `ModuleFacts` say what is in scope around a statement; `header_nodes`,
`statement_at`, `enclosing_function`, `parent_map` and `inside_loop` find a statement and its
surroundings; `called_name` names a call's function, `operator_edit` finds an operator token,
and `paren` and `short` write and describe an edit. The operator families (composed by
`operators`) and the fix templates (composed by `templates`) build on these.
"""

from __future__ import annotations

import ast
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
    "attribute-of": 0.4,
    "return-value": 0.4,
    "call-unwrap": 0.35,
    "statement-move": 0.35,
    "break-continue": 0.35,
    "statement-delete": 0.25,
    "statement-insert": 0.2,
    # fix templates (templates.py and the *_templates modules it composes)
    "none-check": 0.55,
    "argument": 0.5,
    "constant-swap": 0.5,
    "format-string": 0.5,
    "regex": 0.5,
    "grouping": 0.45,
    "normalize": 0.4,
    "index-step": 0.45,
    # error-directed repairs at a crash site (crash_templates.py): they only run where a failing
    # test raised the exception they answer, so they rank above every blind family there
    "crash-name": 1.3,
    "crash-arity": 1.2,
    "crash-none": 1.1,
    "crash-bound": 1.1,
    # an `except` clause widened by the exception a failing test crashed with in its `try`, or
    # narrowed to let through one the test names: directed, but a guess about which clause
    "exception-handler": 1.0,
    # regex and string literals guided by the failing tests' inputs (regex_templates.py,
    # string_templates.py)
    "regex-edit": 0.55,
    "separator": 0.5,
    "format-field": 0.45,
    "named-constant": 0.5,
    # a value wrapped in the conversion a failing assertion asks for (conversion_templates.py)
    "conversion": 0.55,
    # a method of the same class with a related name (sibling_methods.py)
    "sibling-method": 0.5,
    # a method's own class called by name where the receiver's class is meant (receiver_class.py)
    "receiver-class": 0.5,
    # expression synthesis from in-scope values (synthesis.py): below the single-token families,
    # weighted up by the failing tests' actual and expected values
    "synthesis-adjust": 0.5,
    "synthesis-clamp": 0.5,
    "synthesis-neutral": 0.5,
    "synthesis-update": 0.5,
    "synthesis-replace": 0.4,
    # classic fix patterns of TBar and PAR (pattern_templates.py and the modules it composes),
    # below the single-token families: each is a larger edit with more ways to be wrong
    "sibling-argument": 0.45,
    "iteration": 0.4,
    "return-expression": 0.35,
    "subexpression-removal": 0.3,
    "sibling-insert": 0.3,
}

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


def paren(src: SourceFile, node: ast.AST) -> str:
    text = src.segment(node)
    return text if isinstance(node, ATOMS) else f"({text})"


def short(text: str, limit: int = 60) -> str:
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
        self.attribute_reads: dict[str, list[str]] = {}  # `node.parent` read here: "node" -> ["parent"]
        called: set[int] = set()  # methods are not values: `x.strip` never stands in for `x`
        for node in _walk_function(body_root):
            if isinstance(node, ast.Call):
                called.add(id(node.func))
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and id(node) not in called
                and node.attr not in self.attribute_reads.setdefault(node.value.id, [])
            ):
                self.attribute_reads[node.value.id].append(node.attr)
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


def indent_unit(src: SourceFile) -> str:
    """One level of the file's indentation: a tab, or its first indent's spaces (at most 4)."""
    for line in src.text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and line != stripped:
            indent = line[: len(line) - len(stripped)]
            return "\t" if indent.startswith("\t") else " " * min(len(indent), 4)
    return "    "


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
        self.definitions: dict[str, ast.stmt] = {}  # name -> the top-level assignment binding it
        self.classes: list[frozenset[str]] = []  # each class's public method names, for sibling methods
        # (class, name) -> the assignment in the class's body binding it (`RE = re.compile(...)`)
        self.class_definitions: dict[tuple[str, str], ast.stmt] = {}
        self.class_bases: dict[str, list[str]] = {}  # class -> the names of its bases
        self.modules: set[str] = set()  # names `import x` binds: `x.y` is the module's, not the program's
        # each class's data attributes in the order it defines them: `self.x = ...` in its methods,
        # then annotated or assigned names of its body (dataclass fields); methods are not data
        self.class_attributes: list[tuple[str, ...]] = []
        for node in ast.walk(src.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                self.attributes.setdefault(node.value.id, set()).add(node.attr)
            elif isinstance(node, ast.Import):
                self.modules |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
            elif isinstance(node, ast.Name):
                self.names.add(node.id)
            elif isinstance(node, ast.alias):
                self.names.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ClassDef):
                methods = frozenset(
                    item.name
                    for item in node.body
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and not item.name.startswith("_")
                )
                if len(methods) > 1:
                    self.classes.append(methods)
                self.class_bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]
                data = _data_attributes(node)
                if len(data) > 1:
                    self.class_attributes.append(data)
                for item in node.body:
                    for target in _assigned_names(item):
                        self.class_definitions[(node.name, target)] = item
        for node in src.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.append(node.name)
            elif isinstance(node, ast.ClassDef):
                self.names.add(node.name)
            for target in _assigned_names(node):
                self.definitions[target] = node

    def lineage(self, class_name: str) -> list[str]:
        """The class and the bases of it this file names, nearest first (breadth-first)."""
        found: list[str] = []
        pending = [class_name]
        while pending:
            current = pending.pop(0)
            if current not in found:
                found.append(current)
                pending += self.class_bases.get(current, [])
        return found

    def class_definition(self, class_name: str, name: str) -> ast.stmt | None:
        """The class-body assignment `name` reads through `self`/`cls` of `class_name`, or
        through the class's name: its own or a base class's in this file."""
        for current in self.lineage(class_name):
            if (current, name) in self.class_definitions:
                return self.class_definitions[(current, name)]
        return None


def _data_attributes(node: ast.ClassDef) -> tuple[str, ...]:
    """The data attributes a class defines, in order: `self.x` stores of its methods, then the
    names its body annotates or assigns (a dataclass's fields, class constants)."""
    found: list[str] = []
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.args.args:
            receiver = item.args.args[0].arg
            for inner in ast.walk(item):
                if (
                    isinstance(inner, ast.Attribute)
                    and isinstance(inner.ctx, ast.Store)
                    and isinstance(inner.value, ast.Name)
                    and inner.value.id == receiver
                    and inner.attr not in found
                ):
                    found.append(inner.attr)
    for item in node.body:
        targets = [item.target] if isinstance(item, ast.AnnAssign) else _assigned_targets(item)
        for target in targets:
            if isinstance(target, ast.Name) and target.id not in found and not target.id.startswith("__"):
                found.append(target.id)
    return tuple(found)


def _assigned_targets(node: ast.stmt) -> list[ast.expr]:
    return list(node.targets) if isinstance(node, ast.Assign) else []


def _assigned_names(node: ast.stmt) -> list[str]:
    """Names a plain (or annotated, valued) assignment statement binds."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return []
    return [t.id for t in targets if isinstance(t, ast.Name)]


def operator_edit(src: SourceFile, left: ast.AST, right: ast.AST, pattern: str) -> tuple[int, int] | None:
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


def called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def inside_loop(statement, parents, function) -> bool:
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
