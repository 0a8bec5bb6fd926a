"""Error-directed repairs: edits at a crash site chosen by the exception the failing test raised.

- `NameError` / `UnboundLocalError`: the name replaced by an in-scope name of almost the same
  spelling (difflib), or the misspelt binding renamed to the name that is read;
- `AttributeError` / `TypeError` on None: a None check at the crash site (a guard before it, a
  default in the expression, or the statement skipped);
- `AttributeError` on another object: the attribute by spelling;
- `KeyError`: `d[k]` -> `d.get(k, default)`, `d[k] += v` -> `d[k] = d.get(k, 0) + v`,
  `d[k].append(v)` -> `d.setdefault(k, []).append(v)`, `pop(k)` -> `pop(k, None)`;
- `IndexError`: a bound (`a[i] if i < len(a) else default`, the index clamped, the loop's range
  one shorter);
- arity or keyword `TypeError`: the call adapted to the callee's signature, read from the
  project's source (a keyword renamed by spelling, an extra argument dropped or passed by keyword,
  a missing one passed from an in-scope name).

They only run where a failing test crashed with the matching exception, so they rank first there.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
from collections.abc import Iterator

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import (
    FunctionFacts,
    Mutation,
    called_name,
    header_nodes,
    indent_unit,
    inside_loop,
    short,
)

BUILTIN_NAMES = sorted(n for n in dir(builtins) if not n.startswith("_"))
QUOTED = re.compile(r"'([\w.]+)'")
DEFAULTS = ("None", "0", '""', "[]")
MAX_SPELLINGS = 4
SPELLING_CUTOFF = 0.6
TAKES = re.compile(r"^(?P<callee>[\w.<>]+)\(\) takes (?:from \d+ to )?(?P<want>\d+) positional")
MISSING = re.compile(
    r"^(?P<callee>[\w.<>]+)\(\) missing \d+ required (?:positional|keyword-only) arguments?: (?P<names>.+)$"
)
UNEXPECTED = re.compile(r"^(?P<callee>[\w.<>]+)\(\) got an unexpected keyword argument '(?P<name>\w+)'")
MULTIPLE = re.compile(
    r"^(?P<callee>[\w.<>]+)\(\) got multiple values for (?:keyword )?argument '(?P<name>\w+)'"
)


def crash_mutations(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    crash: Crash,
    sources: dict[str, str],
) -> Iterator[Mutation]:
    kind = crash.exception
    if kind in ("NameError", "UnboundLocalError"):
        yield from names_by_spelling(src, statement, facts, crash)
    elif kind in ("AttributeError", "TypeError") and crash.on_none:
        yield from none_checks(src, statement, parents, facts, crash)
    elif kind == "AttributeError":
        yield from attributes_by_spelling(src, statement, crash)
    elif kind == "KeyError":
        yield from missing_keys(src, statement, parents, crash)
    elif kind == "IndexError":
        yield from index_bounds(src, statement, parents, facts)
    elif kind == "TypeError":
        yield from call_arity(src, statement, facts, crash, sources)


# -- names and attributes by spelling ------------------------------------------------------


def names_by_spelling(
    src: SourceFile, statement: ast.stmt, facts: FunctionFacts, crash: Crash
) -> Iterator[Mutation]:
    quoted = QUOTED.search(crash.message)
    if quoted is None:
        return
    missing = quoted.group(1)
    reads = [n for n in _header_walk(statement) if isinstance(n, ast.Name) and n.id == missing]
    known = [n for n in [*facts.scope_names, *module_bindings(src), *BUILTIN_NAMES] if n != missing]
    for other, weight in _spellings(missing, known, crash.suggestion):
        if reads:
            yield Mutation(
                "crash-name",
                weight,
                tuple(Edit(src.path, *src.span(n), other) for n in reads),
                f"`{missing}` -> `{other}` (in scope, spelt almost the same)",
            )
        binds = _bindings_of(facts, other)
        if other in facts.locals and binds:
            yield Mutation(
                "crash-name",
                weight * 0.9,
                tuple(Edit(src.path, *src.span(n), missing) for n in binds),
                f"the binding `{other}` renamed to `{missing}`, the name that is read",
            )


def attributes_by_spelling(src: SourceFile, statement: ast.stmt, crash: Crash) -> Iterator[Mutation]:
    match = re.search(r"has no attribute '(\w+)'", crash.message)
    if match is None:
        return
    missing = match.group(1)
    nodes = [n for n in _header_walk(statement) if isinstance(n, ast.Attribute) and n.attr == missing]
    known = sorted({
        n.attr for n in ast.walk(src.tree) if isinstance(n, ast.Attribute) and n.attr != missing
    } | {
        n.name for n in ast.walk(src.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    })  # fmt: skip
    for other, weight in _spellings(missing, known, crash.suggestion):
        edits = tuple(
            Edit(src.path, src.span(n)[1] - len(missing.encode()), src.span(n)[1], other) for n in nodes
        )
        if edits:
            yield Mutation("crash-name", weight, edits, f"attribute `.{missing}` -> `.{other}`")


def _spellings(missing: str, known: list[str], suggestion: str) -> list[tuple[str, float]]:
    ranked: list[tuple[str, float]] = []
    if suggestion and suggestion != missing and "." not in suggestion:
        ranked.append((suggestion, 1.0))
    unique = list(dict.fromkeys(known))
    for other in difflib.get_close_matches(missing, unique, n=MAX_SPELLINGS, cutoff=SPELLING_CUTOFF):
        if other not in (r[0] for r in ranked):
            ranked.append((other, difflib.SequenceMatcher(a=missing, b=other).ratio()))
    return ranked[:MAX_SPELLINGS]


def module_bindings(src: SourceFile) -> list[str]:
    """Names the module binds at its top level: definitions, classes, imports, assignments."""
    names: list[str] = []
    for node in src.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return names


def _bindings_of(facts: FunctionFacts, name: str) -> list[ast.Name]:
    root = facts.function
    if root is None:
        return []
    return [
        n for n in ast.walk(root) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
    ]


# -- None at the crash site ------------------------------------------------------------------


def none_checks(src, statement, parents, facts: FunctionFacts, crash: Crash) -> Iterator[Mutation]:
    suspects = _none_suspects(statement, crash.message)
    seen: set[str] = set()
    for node, default in suspects[:3]:
        text = src.segment(node)
        if text in seen:
            continue
        seen.add(text)
        yield from _guard_before(src, statement, parents, facts, text)
        if default is not None:
            replacement = f"({text} if {text} is not None else {default})"
            yield Mutation(
                "crash-none",
                0.9,
                (Edit(src.path, *src.span(node), replacement),),
                f"`{short(text)}` defaults to `{default}` when it is None",
            )
        yield from _skip_when_none(src, statement, text)


def _none_suspects(statement: ast.stmt, message: str) -> list[tuple[ast.expr, str | None]]:
    """The expressions that can be the None the message names, each with a neutral default."""
    nodes = list(_header_walk(statement))
    attribute = re.search(r"has no attribute '(\w+)'", message)
    found: list[tuple[ast.expr, str | None]] = []
    if attribute:
        found += [
            (n.value, None) for n in nodes if isinstance(n, ast.Attribute) and n.attr == attribute.group(1)
        ]
    if "not subscriptable" in message:
        found += [(n.value, None) for n in nodes if isinstance(n, ast.Subscript)]
    if "not iterable" in message or "unpack" in message:
        found += [(n.iter, "()") for n in nodes if isinstance(n, ast.comprehension)]
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            found.append((statement.iter, "()"))
        if isinstance(statement, ast.Assign):
            found.append((statement.value, "()"))
    if "has no len()" in message:
        found += [
            (n.args[0], "()") for n in nodes if isinstance(n, ast.Call) and called_name(n) == "len" and n.args
        ]
    if "not callable" in message:
        found += [(n.func, None) for n in nodes if isinstance(n, ast.Call)]
    operand = re.search(r"for [^:]+: '(\w+)' and '(\w+)'|between instances of '(\w+)' and '(\w+)'", message)
    if operand:
        left_none = (operand.group(1) or operand.group(3)) == "NoneType"
        for n in nodes:
            if isinstance(n, ast.BinOp):
                found.append((n.left if left_none else n.right, "0"))
            elif isinstance(n, ast.Compare) and len(n.comparators) == 1:
                found.append((n.left if left_none else n.comparators[0], None))
        if isinstance(statement, ast.AugAssign):
            found.append((statement.target if left_none else statement.value, "0"))
    return [(n, d) for n, d in found if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))]


def _guard_before(src, statement, parents, facts: FunctionFacts, text: str) -> Iterator[Mutation]:
    if not _owns_its_lines(src, statement) or facts.function is None:
        return
    indent = src.indent_of(statement.lineno)
    start = src.line_starts[statement.lineno - 1]
    exits = (
        ["return"] if facts.is_generator else [f"return {v}" for v in facts.default_returns(src) or ["None"]]
    )
    if inside_loop(statement, parents, facts.function):
        exits.insert(0, "continue")
    for rank, exit_ in enumerate(exits[:4]):
        guard = f"{indent}if {text} is None:\n{indent}{indent_unit(src)}{exit_}\n"
        yield Mutation(
            "crash-none",
            1.0 - 0.05 * rank,
            (Edit(src.path, start, start, guard),),
            f"`if {short(text)} is None: {exit_}` before line {statement.lineno}",
        )


def _skip_when_none(src, statement, text: str) -> Iterator[Mutation]:
    if not isinstance(statement, (ast.Expr, ast.AugAssign)) or not _owns_its_lines(src, statement):
        return
    indent = src.indent_of(statement.lineno)
    start = src.line_starts[statement.lineno - 1]
    end_line = statement.end_lineno or statement.lineno
    end = src.line_starts[end_line] if end_line < len(src.line_starts) else len(src.data)
    body = "".join(
        f"{indent_unit(src)}{line}" for line in src.data[start:end].decode("utf-8").splitlines(keepends=True)
    )
    yield Mutation(
        "crash-none",
        0.8,
        (Edit(src.path, start, end, f"{indent}if {text} is not None:\n{body}"),),
        f"line {statement.lineno} only when `{short(text)}` is not None",
    )


# -- missing keys and indices ----------------------------------------------------------------


def missing_keys(src: SourceFile, statement: ast.stmt, parents, crash: Crash) -> Iterator[Mutation]:
    path = src.path
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Subscript):
        target = statement.target
        container, key = src.segment(target.value), src.segment(target.slice)
        op = _OPERATORS.get(type(statement.op))
        if op:
            for default in ("0", '""'):
                value = f"{container}.get({key}, {default}) {op} {src.segment(statement.value)}"
                text = f"{src.segment(target)} = {value}"
                yield Mutation(
                    "crash-bound",
                    1.0 if default == "0" else 0.8,
                    (Edit(path, *src.span(statement), text),),
                    f"`{short(src.segment(statement))}` starts `{container}[{short(key)}]` at {default}",
                )
    if isinstance(statement, ast.Delete):
        for target in statement.targets:
            if isinstance(target, ast.Subscript):
                text = f"{src.segment(target.value)}.pop({src.segment(target.slice)}, None)"
                yield Mutation(
                    "crash-bound", 1.0, (Edit(path, *src.span(statement), text),), f"`del` -> `{text}`"
                )
    for node in _header_walk(statement):
        if _is_pop(node) and len(node.args) == 1 and not node.keywords:
            end = src.span(node)[1] - 1
            yield Mutation(
                "crash-bound", 0.9, (Edit(path, end, end, ", None"),), "`pop(k)` -> `pop(k, None)`"
            )
        if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
            continue
        if isinstance(node.slice, ast.Slice):
            continue
        container, key = src.segment(node.value), src.segment(node.slice)
        constant = isinstance(node.slice, ast.Constant)
        if constant and repr(node.slice.value) != crash.message:
            continue  # a constant key the message does not name is not the missing one
        weight = 1.0 if constant else 0.85
        method = _method_on(node, parents)
        if method in ("append", "extend", "add", "update", "insert"):
            empty = "set()" if method == "add" else "{}" if method == "update" else "[]"
            text = f"{container}.setdefault({key}, {empty})"
            yield Mutation(
                "crash-bound", weight, (Edit(path, *src.span(node), text),),
                f"`{short(src.segment(node))}` -> `{short(text)}`",
            )  # fmt: skip
        for rank, default in enumerate(DEFAULTS):
            text = f"{container}.get({key})" if default == "None" else f"{container}.get({key}, {default})"
            yield Mutation(
                "crash-bound",
                weight * (1.0 - 0.05 * rank),
                (Edit(path, *src.span(node), text),),
                f"`{short(src.segment(node))}` -> `{short(text)}`",
            )


def index_bounds(src: SourceFile, statement: ast.stmt, parents, facts: FunctionFacts) -> Iterator[Mutation]:
    path = src.path
    indexed = [
        n
        for n in _header_walk(statement)
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and not isinstance(n.slice, ast.Slice)
    ]
    for node in indexed[:3]:
        container, index = src.segment(node.value), src.segment(node.slice)
        loop_bound = _loop_range_bound(node, statement, parents, facts)
        if loop_bound is not None:
            bound, text = loop_bound
            yield Mutation(
                "crash-bound", 1.0, (Edit(path, *src.span(bound), text),),
                f"the loop's range ends at `{short(text)}` so `{short(src.segment(node))}` stays in bounds",
            )  # fmt: skip
        negative = isinstance(node.slice, ast.UnaryOp) and isinstance(node.slice.op, ast.USub)
        check = container if negative else f"{index} < len({container})"
        for rank, default in enumerate(DEFAULTS[:3]):
            text = f"({src.segment(node)} if {check} else {default})"
            yield Mutation(
                "crash-bound",
                0.9 - 0.05 * rank,
                (Edit(path, *src.span(node), text),),
                f"`{short(src.segment(node))}` -> `{short(text)}`",
            )
        if not negative:
            text = f"{container}[min({index}, len({container}) - 1)]"
            yield Mutation(
                "crash-bound", 0.7, (Edit(path, *src.span(node), text),), f"index clamped: `{short(text)}`"
            )
    for node in _header_walk(statement):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop":
            owner = src.segment(node.func.value)
            text = f"({src.segment(node)} if {owner} else None)"
            yield Mutation(
                "crash-bound",
                0.85,
                (Edit(path, *src.span(node), text),),
                f"pop only when `{owner}` has items",
            )


def _loop_range_bound(node: ast.Subscript, statement, parents, facts) -> tuple[ast.expr, str] | None:
    """`for i in range(len(a)): a[i + 1]` -> `range(len(a) - 1)`: the range of the loop whose
    variable indexes past the end."""
    used = {n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name)}
    loop = parents.get(statement)
    while loop is not None and loop is not facts.function:
        if (
            isinstance(loop, ast.For)
            and isinstance(loop.target, ast.Name)
            and loop.target.id in used
            and isinstance(loop.iter, ast.Call)
            and called_name(loop.iter) == "range"
            and loop.iter.args
        ):
            bound = loop.iter.args[0] if len(loop.iter.args) == 1 else loop.iter.args[1]
            return bound, f"{ast.unparse(bound)} - 1"
        loop = parents.get(loop)
    return None


# -- calls that do not fit the callee's signature ----------------------------------------------


def call_arity(
    src: SourceFile, statement: ast.stmt, facts: FunctionFacts, crash: Crash, sources: dict[str, str]
) -> Iterator[Mutation]:
    message = crash.message
    match = (
        TAKES.match(message) or MISSING.match(message) or UNEXPECTED.match(message) or MULTIPLE.match(message)
    )
    if match is None:
        return
    callee = match["callee"].split(".")
    name = callee[-2] if callee[-1] == "__init__" and len(callee) > 1 else callee[-1]
    calls = [n for n in _header_walk(statement) if isinstance(n, ast.Call) and called_name(n) == name]
    signature = _signature(sources, callee)
    for call in calls[:2]:
        if match.re is UNEXPECTED:
            yield from _unexpected_keyword(src, call, match["name"], signature)
        elif match.re is MULTIPLE:
            yield from _multiple_values(src, call, match["name"], signature)
        elif match.re is TAKES:
            yield from _too_many(src, call, signature)
        else:
            yield from _missing(src, call, QUOTED.findall(match["names"]), facts)


def _unexpected_keyword(
    src, call: ast.Call, name: str, signature: ast.arguments | None
) -> Iterator[Mutation]:
    keyword = next((k for k in call.keywords if k.arg == name), None)
    if keyword is None:
        return
    passed = {k.arg for k in call.keywords}
    if signature is not None:
        params = [a.arg for a in [*signature.args, *signature.kwonlyargs] if a.arg not in passed]
        for other, weight in _spellings(name, params, ""):
            at = src.span(keyword)[0]
            yield Mutation(
                "crash-arity", weight, (Edit(src.path, at, at + len(name.encode()), other),),
                f"keyword `{name}=` -> `{other}=` (the callee's parameter)",
            )  # fmt: skip
    yield from _drop(src, call, keyword, 0.6, f"keyword `{name}=` dropped")


def _multiple_values(src, call: ast.Call, name: str, signature: ast.arguments | None) -> Iterator[Mutation]:
    keyword = next((k for k in call.keywords if k.arg == name), None)
    if keyword is not None:
        yield from _drop(src, call, keyword, 0.9, f"keyword `{name}=` passed twice: dropped")
    if signature is not None:
        positional = [a.arg for a in signature.args if a.arg not in ("self", "cls")]
        if name in positional and positional.index(name) < len(call.args):
            argument = call.args[positional.index(name)]
            yield from _drop(src, call, argument, 0.8, f"positional `{short(src.segment(argument))}` dropped")


def _too_many(src, call: ast.Call, signature: ast.arguments | None) -> Iterator[Mutation]:
    arguments = [a for a in call.args if not isinstance(a, ast.Starred)]
    if len(arguments) != len(call.args):
        return
    if signature is not None and signature.kwonlyargs:
        extra = arguments[len(signature.posonlyargs) + len(signature.args) :]
        if 0 < len(extra) <= len(signature.kwonlyargs):
            edits = tuple(
                Edit(src.path, src.span(a)[0], src.span(a)[0], f"{k.arg}=")
                for a, k in zip(extra, signature.kwonlyargs, strict=False)
            )
            yield Mutation(
                "crash-arity", 1.0, edits, "extra positional arguments passed by the callee's keywords"
            )
    for index, argument in reversed(list(enumerate(arguments))):
        weight = 0.8 if index == len(arguments) - 1 else 0.6
        yield from _drop(
            src, call, argument, weight, f"extra argument `{short(src.segment(argument))}` dropped"
        )


def _missing(src, call: ast.Call, names: list[str], facts: FunctionFacts) -> Iterator[Mutation]:
    in_scope = [*facts.scope_names, *module_bindings(src)]
    end = src.span(call)[1] - 1
    sep = ", " if call.args or call.keywords else ""
    for name in names[:1]:
        for other, weight in _spellings(name, in_scope, name if name in in_scope else ""):
            yield Mutation(
                "crash-arity", weight, (Edit(src.path, end, end, f"{sep}{name}={other}"),),
                f"missing argument `{name}` passed as `{name}={other}`",
            )  # fmt: skip


def _drop(
    src: SourceFile, call: ast.Call, argument: ast.AST, weight: float, description: str
) -> Iterator[Mutation]:
    """Remove one argument with its separating comma."""
    items = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    index = items.index(argument)
    start, end = src.span(argument)
    if index + 1 < len(items):
        end = src.span(items[index + 1])[0]
    elif index > 0:
        start = src.span(items[index - 1])[1]
    yield Mutation("crash-arity", weight, (Edit(src.path, start, end, ""),), description)


def _signature(sources: dict[str, str], callee: list[str]) -> ast.arguments | None:
    """The parameters of the project's function or method the message names (`Cls.method`)."""
    function = callee[-1]
    owner = callee[-2] if len(callee) > 1 else None
    for text in sources.values():
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if owner is not None and isinstance(node, ast.ClassDef) and node.name == owner:
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == function:
                        return _without_self(item.args)
            elif (
                owner is None
                and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node.name == function
            ):
                return node.args
    return None


def _without_self(args: ast.arguments) -> ast.arguments:
    if not (args.args and args.args[0].arg in ("self", "cls")):
        return args
    return ast.arguments(
        posonlyargs=args.posonlyargs, args=args.args[1:], vararg=args.vararg, kwonlyargs=args.kwonlyargs,
        kw_defaults=args.kw_defaults, kwarg=args.kwarg, defaults=args.defaults,
    )  # fmt: skip


# -- helpers -----------------------------------------------------------------------------------

_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitOr: "|", ast.Div: "/"}


def _is_pop(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop"


def _header_walk(statement: ast.stmt) -> Iterator[ast.AST]:
    for header in header_nodes(statement):
        yield from ast.walk(header)


def _method_on(node: ast.Subscript, parents) -> str | None:
    """`d[k].append(v)` -> "append": the method called on the subscript, if any."""
    attribute = parents.get(node)
    call = parents.get(attribute)
    if isinstance(attribute, ast.Attribute) and isinstance(call, ast.Call) and call.func is attribute:
        return attribute.attr
    return None


def _owns_its_lines(src: SourceFile, statement: ast.stmt) -> bool:
    indent = src.indent_of(statement.lineno)
    return src.line_text(statement.lineno)[len(indent) :] == src.segment(statement).splitlines()[0]
