"""The changed function as the generator sees it, read from the patched source with `ast` only.

Nothing here imports or runs the project's code: signatures, annotations, the classes of the file
(to build arguments of those types), the exceptions the function declares, and its docstring
examples all come from the text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import doctest

FUNCTION, INSTANCE, CLASSMETHOD, STATICMETHOD, PROPERTY = (
    "function",
    "instance",
    "classmethod",
    "staticmethod",
    "property",
)
_EXCEPTION_WORD = re.compile(r"\b([A-Z][A-Za-z0-9_]*(?:Error|Exception|Warning|Exit|Interrupt))\b")
_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}


@dataclass(frozen=True)
class Param:
    name: str
    keyword_only: bool = False
    annotation: str | None = None  # source text of the annotation
    default: str | None = None  # source text of the default, None: required


@dataclass(frozen=True)
class ClassInfo:
    """A class of the changed file and how to construct it."""

    name: str
    kind: str  # "dataclass" | "namedtuple" | "enum" | "plain"
    fields: tuple[Param, ...] = ()  # the constructor's parameters
    members: tuple[str, ...] = ()  # enum members


@dataclass(frozen=True)
class Example:
    """A docstring example: `expr` should evaluate to `want`, or raise `raises`."""

    expr: str
    want: str | None = None
    raises: str | None = None


@dataclass(frozen=True)
class FunctionInfo:
    qualname: str  # "merge" or "Stack.peek"
    name: str
    owner: ClassInfo | None
    binding: str  # FUNCTION, INSTANCE, CLASSMETHOD, STATICMETHOD or PROPERTY
    params: tuple[Param, ...]  # without self/cls and without *args/**kwargs
    docstring: str
    declared: frozenset[str]  # exception names the body raises or the docstring names
    is_async: bool = False

    @property
    def bind(self) -> str:
        """The name a test imports: the function, or the class that owns the method."""
        return self.owner.name if self.owner else self.name


def find_function(source: str, qualname: str) -> FunctionInfo | None:
    """The top-level function or `Class.method` named `qualname` in `source`, or None."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    parts = qualname.replace(".<locals>.", ".").split(".")
    classes = classes_in(tree)
    if len(parts) == 1:
        node = _named(tree.body, parts[0], (ast.FunctionDef, ast.AsyncFunctionDef))
        return _info(node, qualname, None, FUNCTION) if node else None
    if len(parts) == 2:
        class_node = _named(tree.body, parts[0], (ast.ClassDef,))
        if class_node is None:
            return None
        node = _named(class_node.body, parts[1], (ast.FunctionDef, ast.AsyncFunctionDef))
        if node is None:
            return None
        decorators = {_last_name(d) for d in node.decorator_list}
        binding = next(
            (b for b in (STATICMETHOD, CLASSMETHOD, PROPERTY) if b in decorators),
            INSTANCE,
        )
        if binding == PROPERTY and "setter" in {getattr(d, "attr", "") for d in node.decorator_list}:
            return None
        return _info(node, qualname, classes.get(parts[0]), binding)
    return None  # nested functions cannot be called from a test


def classes_in(tree: ast.Module | str) -> dict[str, ClassInfo]:
    """Top-level classes of a module, by name, with their constructor parameters."""
    if isinstance(tree, str):
        try:
            tree = ast.parse(tree)
        except (SyntaxError, ValueError):
            return {}
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            found[node.name] = _class_info(node)
    return found


def docstring_examples(info: FunctionInfo, limit: int = 10) -> list[Example]:
    """`>>>` examples that call the function, and inline `name(args) == value` claims."""
    found: list[Example] = []
    text = info.docstring
    if not text:
        return found
    for example in _doctest_examples(text):
        expr = example.source.strip()
        if not _single_expression(expr) or not _calls(expr, info.name):
            continue
        want = example.want.strip()
        if example.exc_msg is not None or want.startswith("Traceback"):
            last = want.strip().splitlines()[-1] if want.strip() else ""
            match = re.match(r"^([A-Za-z_][\w.]*)", last)
            if match:
                found.append(Example(expr, raises=match.group(1).rsplit(".", 1)[-1]))
        elif want and _single_expression(want):
            found.append(Example(expr, want=want))
    found += _inline_claims(text, info.name)
    unique = list(dict.fromkeys(found))
    return unique[:limit]


# -- helpers ------------------------------------------------------------------------------------


def _doctest_examples(text: str) -> list[doctest.Example]:
    if ">>>" not in text:
        return []
    import doctest  # only where there is an example to parse: it brings unittest and pdb

    try:
        return doctest.DocTestParser().get_examples(text)
    except ValueError:
        return []


def _named(body: list[ast.stmt], name: str, kinds: tuple[type, ...]) -> ast.AST | None:
    found = None
    for node in body:
        if isinstance(node, kinds) and node.name == name:
            found = node  # the last definition wins, as at import time
    return found


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _params(args: ast.arguments, skip_first: bool) -> tuple[Param, ...]:
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = [
        Param(a.arg, False, _text(a.annotation), _text(d)) for a, d in zip(positional, defaults, strict=True)
    ]
    if skip_first:
        params = params[1:]
    params += [
        Param(a.arg, True, _text(a.annotation), _text(d))
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    return tuple(params)


def _text(node: ast.expr | None) -> str | None:
    return ast.unparse(node) if node is not None else None


def _info(node: ast.AST, qualname: str, owner: ClassInfo | None, binding: str) -> FunctionInfo:
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    docstring = ast.get_docstring(node) or ""
    declared = set(_EXCEPTION_WORD.findall(docstring))
    for inner in ast.walk(node):
        if isinstance(inner, ast.Raise) and inner.exc is not None:
            raised = inner.exc.func if isinstance(inner.exc, ast.Call) else inner.exc
            name = _last_name(raised)
            if name:
                declared.add(name)
    return FunctionInfo(
        qualname=qualname,
        name=node.name,
        owner=owner,
        binding=binding,
        params=_params(node.args, skip_first=binding in (INSTANCE, CLASSMETHOD, PROPERTY)),
        docstring=docstring,
        declared=frozenset(declared),
        is_async=isinstance(node, ast.AsyncFunctionDef),
    )


def _class_info(node: ast.ClassDef) -> ClassInfo:
    bases = {_last_name(b) for b in node.bases}
    decorators = {_last_name(d) for d in node.decorator_list}
    if bases & _ENUM_BASES:
        members = [
            target.id
            for statement in node.body
            if isinstance(statement, ast.Assign)
            for target in statement.targets
            if isinstance(target, ast.Name) and not target.id.startswith("_")
        ]
        return ClassInfo(node.name, "enum", members=tuple(members))
    if "dataclass" in decorators or "NamedTuple" in bases:
        fields = []
        for statement in node.body:
            if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
                continue
            annotation = ast.unparse(statement.annotation)
            if "ClassVar" in annotation or "InitVar" in annotation:
                continue
            default = statement.value
            if isinstance(default, ast.Call) and _last_name(default.func) == "field":
                keywords = {k.arg: k.value for k in default.keywords}
                init = keywords.get("init")
                if isinstance(init, ast.Constant) and init.value is False:
                    continue
                default = keywords.get("default") or keywords.get("default_factory")
            fields.append(Param(statement.target.id, False, annotation, _text(default)))
        return ClassInfo(node.name, "namedtuple" if "NamedTuple" in bases else "dataclass", tuple(fields))
    init = _named(node.body, "__init__", (ast.FunctionDef,))
    fields_ = _params(init.args, skip_first=True) if isinstance(init, ast.FunctionDef) else ()
    return ClassInfo(node.name, "plain", fields_)


def _single_expression(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return True


def _calls(expr: str, name: str) -> bool:
    tree = ast.parse(expr, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _last_name(node.func) == name:
            return True
        if isinstance(node, ast.Attribute) and node.attr == name:
            return True
    return False


def _inline_claims(text: str, name: str) -> list[Example]:
    """`name(args) == value` written in prose ("... rounded: percent_of(80, 25) == 20.00.")."""
    found = []
    for match in re.finditer(rf"(?<![\w.]){re.escape(name)}\(", text):
        start = match.start()
        depth, end = 0, None
        for index in range(match.end() - 1, min(len(text), start + 300)):
            if text[index] == "(":
                depth += 1
            elif text[index] == ")":
                depth -= 1
                if depth == 0:
                    end = index + 1
                    break
        if end is None:
            continue
        rest = text[end:].split("\n", 1)[0]
        claim = re.match(r"\s*==\s*(.+)", rest)
        if not claim or not _single_expression(text[start:end]):
            continue
        value = claim.group(1).strip()[:80]
        while value and not _single_expression(value):
            value = value[:-1].rstrip()
        value = value.rstrip(",;")
        if value and _single_expression(value):
            found.append(Example(text[start:end], want=value))
    return found
