"""Receiver class: a method that names its own class, `Version(...)` -> `type(self)(...)`.

A method that builds a new instance by writing its class's name (`return Version(**parts)`, or
`Money.parse(text)`) hands a subclass's caller an instance of the base class: the subclass's own
`__str__`, validation or extra fields are lost. The fix people write asks the receiver for its
class instead: `type(self)(...)` in a method, `cls(...)` in a class method (and in `__new__`).
This family offers that edit where a method of a class calls the class itself, or a base class
of it defined in the same file, by name. Static methods have no receiver and are left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import FunctionFacts, ModuleFacts, Mutation

# methods Python calls with the class, not an instance, as their first argument
_IMPLICIT_CLASS_METHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})


def receiver_class_mutations(
    src: SourceFile,
    node: ast.Call,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    module: ModuleFacts,
) -> Iterator[Mutation]:
    """`C(...)` or `C.m(...)` in a method of C, or of a subclass of C in this file: C -> the
    receiver's class."""
    named = node.func.value if isinstance(node.func, ast.Attribute) else node.func
    if not isinstance(named, ast.Name):
        return
    function = facts.function
    owner = parents.get(function) if function is not None else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not isinstance(
        owner, ast.ClassDef
    ):
        return
    if named.id not in module.lineage(owner.name):
        return
    receiver = _receiver(function)
    if receiver is None:
        return
    kind, name = receiver
    if _explicit_unbound_call(node, name):
        return
    replacement = name if kind == "class" else f"type({name})"
    yield Mutation(
        "receiver-class",
        1.0,
        (Edit(src.path, *src.span(named), replacement),),
        f"`{named.id}` -> `{replacement}` (the receiver's class, so subclasses get their own)",
    )


def _explicit_unbound_call(node: ast.Call, receiver: str) -> bool:
    """`Base.method(self, ...)` calls that class's own method on purpose: through the receiver's
    class it would reach the subclass's override (and recurse when that override is the caller)."""
    return (
        isinstance(node.func, ast.Attribute)
        and bool(node.args)
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == receiver
    )


def _receiver(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, str] | None:
    """("class", name) or ("instance", name) of the method's first parameter; None for a static
    method or a method without one."""
    decorators = {d.id for d in function.decorator_list if isinstance(d, ast.Name)}
    if "staticmethod" in decorators:
        return None
    positional = [*function.args.posonlyargs, *function.args.args]
    if not positional:
        return None
    first = positional[0].arg
    if "classmethod" in decorators or function.name in _IMPLICIT_CLASS_METHODS:
        return "class", first
    return "instance", first
