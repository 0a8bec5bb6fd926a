"""Error-directed repairs of an arity or keyword `TypeError`: the call adapted to the callee's
signature, read from the project's source (a keyword renamed by spelling, an extra argument dropped
or passed by keyword, a missing one passed from an in-scope name)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.crash_site import QUOTED, header_walk, module_bindings, spellings
from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, Mutation, called_name, short

TAKES = re.compile(r"^(?P<callee>[\w.<>]+)\(\) takes (?:from \d+ to )?(?P<want>\d+) positional")
MISSING = re.compile(
    r"^(?P<callee>[\w.<>]+)\(\) missing \d+ required (?:positional|keyword-only) arguments?: (?P<names>.+)$"
)
UNEXPECTED = re.compile(r"^(?P<callee>[\w.<>]+)\(\) got an unexpected keyword argument '(?P<name>\w+)'")
MULTIPLE = re.compile(
    r"^(?P<callee>[\w.<>]+)\(\) got multiple values for (?:keyword )?argument '(?P<name>\w+)'"
)


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
    calls = [n for n in header_walk(statement) if isinstance(n, ast.Call) and called_name(n) == name]
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
        for other, weight in spellings(name, params, ""):
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
        for other, weight in spellings(name, in_scope, name if name in in_scope else ""):
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
