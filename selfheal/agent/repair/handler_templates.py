"""Exception-handler repairs: the `except` clause a failing test's exception went around or through.

- *widened*: an exception raised in a `try` body, or in what the body called, that none of its
  handlers catches (a failing test crashed with it through there) is added to a handler's types,
  `except AttributeError as e:` -> `except (AttributeError, TypeError) as e:`, so that the
  handler's conversion or fallback covers it as it covers its sibling. First the handlers whose
  body raises an exception the failing test names: the test expects that conversion.
- *narrowed*: a handler the failing test ran, which catches an exception that test names (it
  expects it to pass through): a bare `except:` or `except BaseException:` becomes `except
  Exception:` where the named exception is KeyboardInterrupt, SystemExit or GeneratorExit; any
  other handler gets a clause before it that re-raises the named exception (`except KeyError:
  raise`).

Both change which exceptions a handler takes, never what it does with them. The exception named in
an edit must be a builtin or a name the module binds, so that the edited code can refer to it.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.crash_site import module_bindings
from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import Mutation
from selfheal.agent.repair.overfit import BROAD

FAMILY = "exception-handler"
# what `except Exception` lets pass: the exceptions a library should not turn into its own errors
NOT_EXCEPTIONS = ("KeyboardInterrupt", "SystemExit", "GeneratorExit")
MAX_HANDLERS = 4


def handler_edits(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    crashes: list[Crash],
    named: tuple[str, ...],
) -> Iterator[Mutation]:
    """`crashes`: those whose traceback passes `statement`; `named`: the exception classes the
    failing tests name (what they expect raised or passed through)."""
    referable = set(module_bindings(src)) | BUILTIN_EXCEPTIONS
    for child, enclosing in _enclosing_blocks(statement, parents):
        if not isinstance(enclosing, ast.Try):
            continue
        if any(child is node for node in enclosing.body):
            escaped = [
                exception
                for exception in dict.fromkeys(c.exception for c in crashes)
                if exception in referable and not any(catches(h, exception) for h in enclosing.handlers)
            ]
            yield from _widened(src, enclosing, escaped, named)
        elif isinstance(child, ast.ExceptHandler):
            yield from _narrowed(src, enclosing, child, named, referable)


def _widened(
    src: SourceFile, block: ast.Try, escaped: list[str], named: tuple[str, ...]
) -> Iterator[Mutation]:
    """Each handler widened by all the exceptions that escaped the `try` (the failing tests
    crashed with each of them through it), then by each one alone, a little lower."""
    if not escaped:
        return  # what was raised here was caught here: its escape is not this clause's doing
    choices = [escaped] + ([[e] for e in escaped] if len(escaped) > 1 else [])
    for handler in block.handlers[:MAX_HANDLERS]:
        kinds = _kinds(handler)  # typed: a bare handler catches everything, so nothing escaped
        converts = bool(set(_raised_names(handler)) & set(named))
        for added in choices:
            text = "(" + ", ".join([*(src.segment(k) for k in kinds), *added]) + ")"
            yield Mutation(
                FAMILY,
                (1.0 if converts else 0.6) * (1.0 if added is escaped else 0.9),
                (Edit(src.path, *src.span(handler.type), text),),
                f"`except {src.segment(handler.type)}` -> `except {text}` (the {' and '.join(added)} "
                f"raised in its `try` at line {block.lineno} escaped it)",
            )


def _narrowed(
    src: SourceFile, block: ast.Try, handler: ast.ExceptHandler, named: tuple[str, ...], referable: set[str]
) -> Iterator[Mutation]:
    raised = set(_raised_names(handler))
    passed_through = [
        n for n in named if n in referable and n not in raised and catches(handler, n) and n not in BROAD
    ]
    if not passed_through:
        return
    start, _ = src.span(handler)
    if _takes_everything(handler) and any(n in NOT_EXCEPTIONS for n in passed_through):
        if handler.type is None:
            edit = Edit(src.path, start + len("except"), start + len("except"), " Exception")
        else:
            edit = Edit(src.path, *src.span(handler.type), "Exception")
        yield Mutation(
            FAMILY,
            1.0,
            (edit,),
            f"`except{'' if handler.type is None else ' ' + src.segment(handler.type)}:` -> "
            f"`except Exception:` (lets {', '.join(n for n in passed_through if n in NOT_EXCEPTIONS)} "
            "pass through)",
        )
        return
    indent = src.indent_of(handler.lineno)
    unit = src.indent_of(handler.body[0].lineno)[len(indent) :] or "    "
    line_start = src.line_starts[handler.lineno - 1]
    for name in passed_through[:MAX_HANDLERS]:
        yield Mutation(
            FAMILY,
            0.7,
            (Edit(src.path, line_start, line_start, f"{indent}except {name}:\n{indent}{unit}raise\n"),),
            f"`except {name}: raise` before the handler at line {handler.lineno} (lets {name} pass through)",
        )


def catches(handler: ast.ExceptHandler, exception: str) -> bool:
    """Whether the handler takes `exception` (a class name), as far as the names tell."""
    if handler.type is None:
        return True
    for kind in _kinds(handler):
        name = _name(kind)
        if name == exception or name == "BaseException":
            return True
        if name == "Exception" and exception not in NOT_EXCEPTIONS:
            return True
        mine, theirs = getattr(builtins, exception, None), getattr(builtins, name or "", None)
        if _is_exception_class(mine) and _is_exception_class(theirs) and issubclass(mine, theirs):
            return True
    return False


def _takes_everything(handler: ast.ExceptHandler) -> bool:
    return handler.type is None or _name(handler.type) == "BaseException"


def _kinds(handler: ast.ExceptHandler) -> list[ast.expr]:
    """The exception classes a typed handler names: `except (A, B)` and `except A` alike."""
    assert handler.type is not None
    return handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]


def _raised_names(handler: ast.ExceptHandler) -> list[str]:
    names = []
    for node in ast.walk(handler):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = _name(target)
            if name:
                names.append(name)
    return names


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _enclosing_blocks(
    statement: ast.stmt, parents: dict[ast.AST, ast.AST]
) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(child, parent) from the statement up to the function or class around it."""
    child: ast.AST = statement
    while (parent := parents.get(child)) is not None:
        yield child, parent
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return
        child = parent


def _is_exception_class(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


BUILTIN_EXCEPTIONS = frozenset(n for n in dir(builtins) if _is_exception_class(getattr(builtins, n)))


def exception_names(function: ast.AST) -> list[str]:
    """The exception classes a test function names: builtin exception classes, and names spelt as
    exception classes are (`...Error`, `...Exception`), as names or attributes."""
    found: list[str] = []
    for node in ast.walk(function):
        name = _name(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if (
            name
            and name not in found
            and (name in BUILTIN_EXCEPTIONS or (name.endswith(("Error", "Exception")) and name[:1].isupper()))
        ):
            found.append(name)
    return found
