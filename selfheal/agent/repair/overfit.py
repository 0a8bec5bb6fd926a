"""Overfit review: what in a verified patch suggests it passes the tests without fixing the bug.

    overfit_risks(base_texts, patched_texts, failing_tests, sources=...) -> list[OverfitRisk]

The verdict judges what the tests see; a patch that special-cases the failing test's input,
swallows every exception into a constant, ignores an argument, behaves differently when it
notices it runs under a test runner, or changes the helper the test checks with rather than the
code it checks, passes it honestly. None of these is proof of a cheat (a real
fix may read `os.environ` or compare with a value a test also uses), so they are reported as risks
in the pull request, for the reviewer, never used to refuse a patch. (What reads of the
circumstances are, and which of them the verdict refuses as telling a test run apart, is
circumstances.py's.)

Only what the patch added counts: a feature present in the function before the patch is the
project's own code, not the patch's doing.
"""

from __future__ import annotations

import ast
import textwrap
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from selfheal.agent.repair.circumstances import circumstances_in, dotted, scopes

# Values too common in real code to say anything about where they came from.
TRIVIAL = frozenset({-1, 0, 1, 2, 10, 100, "", " ", ",", ".", "\n", "utf-8", "ascii"})
BROAD = frozenset({"Exception", "BaseException"})
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
TEST_CHECK = "test_check"


@dataclass(frozen=True)
class OverfitRisk:
    kind: str  # test_literal | circumstances | swallowed | ignored_parameter | test_check
    function: str  # "path: qualname", or "path: module level"
    detail: str

    def __str__(self) -> str:
        return f"possible overfit ({self.kind.replace('_', ' ')}) in `{self.function}`: {self.detail}"

    @property
    def changes_the_check(self) -> bool:
        """The patch changed the check a failing test asserts with, not the code it checks."""
        return self.kind == TEST_CHECK


def overfit_risks(
    base_texts: Mapping[str, str],
    patched_texts: Mapping[str, str],
    failing_tests: Mapping[str, str],
    sources: Mapping[str, str] | None = None,
) -> list[OverfitRisk]:
    """Risks in the patched files; `failing_tests` maps each failing test's id to its text (the
    test function's, or its file's); `sources`: the project's code outside its test files as it
    was (path -> text; default `base_texts`), where a function the tests check with would be
    called if it were more than their helper."""
    tested = _test_literals(failing_tests)
    checks = _checking_calls(failing_tests)
    risks: list[OverfitRisk] = []
    for path, patched in sorted(patched_texts.items()):
        if not path.endswith(".py"):
            continue
        try:
            after = ast.parse(patched)
        except SyntaxError:
            continue
        try:
            before = ast.parse(base_texts.get(path, ""))
        except SyntaxError:
            before = ast.Module(body=[], type_ignores=[])
        old = dict(scopes(before))
        for name, scope in scopes(after):
            previous = old.get(name)
            if previous is not None and ast.dump(previous) == ast.dump(scope):
                continue
            where = f"{path}: {name}"
            risks += _risks_in(where, scope, previous, tested)
            if name in checks and not _used_outside_tests(name, path, sources or base_texts):
                risks.append(_check_risk(where, name, checks[name]))
    return risks


def _check_risk(where: str, name: str, example: str) -> OverfitRisk:
    return OverfitRisk(
        TEST_CHECK, where,
        f"the failing test asserts what `{name}` answers about code it hands over (`{example}`), and "
        f"nothing outside the tests calls `{name}`: the patch may change the test's check rather "
        "than the code it checks",
    )  # fmt: skip


def _checking_calls(failing_tests: Mapping[str, str]) -> dict[str, str]:
    """Functions a failing test checks with: called as the whole subject of an `assert` (or of
    `assert not`) with a lambda among the arguments, as in `assert raises(KeyError, lambda:
    get(d, "k"))`. The code under test then runs inside the function, and its answer is all the
    test looks at: name -> the call, shortened, as written."""
    found: dict[str, str] = {}
    for text in failing_tests.values():
        try:
            module = ast.parse(textwrap.dedent(text))
        except SyntaxError:
            continue
        for node in ast.walk(module):
            if not isinstance(node, ast.Assert):
                continue
            call = node.test.operand if isinstance(node.test, ast.UnaryOp) else node.test
            if not isinstance(call, ast.Call):
                continue
            name = dotted(call.func).rpartition(".")[2]
            passed = [*call.args, *(k.value for k in call.keywords)]
            if name and any(isinstance(a, ast.Lambda) for a in passed):
                shown = ast.unparse(node.test)
                found.setdefault(name, shown if len(shown) <= 80 else shown[:77] + "...")
    return found


def _used_outside_tests(name: str, path: str, sources: Mapping[str, str]) -> bool:
    """Whether code outside the test files refers to `name` besides its definition in `path`:
    a call, an import, an attribute, or the string of an `__all__` entry."""
    for source, text in sources.items():
        if not source.endswith(".py") or name not in text:
            continue
        try:
            module = ast.parse(text)
        except SyntaxError:
            return True  # unreadable: assume it does
        for node in ast.walk(module):
            if (
                (isinstance(node, ast.Name) and node.id == name)
                or (isinstance(node, ast.Attribute) and node.attr == name)
                or (isinstance(node, ast.alias) and name in (node.name.rpartition(".")[2], node.asname))
                or (isinstance(node, ast.Constant) and node.value == name)
            ):
                return True
            if (
                source != path
                and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.name == name
            ):
                return True  # another definition by that name: whose the tests check is unclear
    return False


def _risks_in(where: str, scope: ast.AST, previous: ast.AST | None, tested: Counter) -> list[OverfitRisk]:
    risks: list[OverfitRisk] = []
    added = _features(scope) - (_features(previous) if previous is not None else Counter())

    literals = sorted({value for kind, value in added if kind == "literal" and value in tested})
    if literals:
        shown = ", ".join(literals[:6]) + (" …" if len(literals) > 6 else "")
        risks.append(OverfitRisk(
            "test_literal", where,
            f"the patch adds {shown}, value(s) the failing test itself uses: a patch that answers the "
            "tested input (or returns the expected value) passes without fixing the computation",
        ))  # fmt: skip
    reads = sorted({value for kind, value in added if kind in ("read", "runner_word")})
    if reads:
        risks.append(OverfitRisk(
            "circumstances", where,
            f"the patch makes the code depend on {', '.join(reads[:6])}: what a test run and a user's "
            "call differ in, so the code may behave one way under the tests and another in use",
        ))  # fmt: skip
    swallowed = sum(n for (kind, _), n in added.items() if kind == "swallow")
    if swallowed:
        risks.append(OverfitRisk(
            "swallowed", where,
            "the patch catches every exception and carries on (no re-raise): a failure is hidden "
            "rather than fixed",
        ))  # fmt: skip
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        ignored = _ignored_parameters(scope)
        if ignored:
            risks.append(OverfitRisk(
                "ignored_parameter", where,
                f"after the patch the function never reads its parameter(s) {', '.join(ignored)}: a "
                "result that ignores an input is often a value hard-coded for the tested one",
            ))  # fmt: skip
    return risks


def _features(scope: ast.AST) -> Counter:
    found = circumstances_in(scope)  # ("read", name) and ("runner_word", text), as the verdict reads them
    for node in ast.walk(scope):
        literal = _literal(node)
        if literal is not None:
            found["literal", literal] += 1
        if isinstance(node, ast.ExceptHandler) and _broad(node) and not _reraises(node):
            found["swallow", ""] += 1
    return found


def _literal(node: ast.AST) -> str | None:
    """The value of a meaningful literal (a negative number included), as the tests compare it."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool) and _meaningful(node.value):
        return _key(node.value)
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        value = node.operand.value
        if isinstance(value, int | float) and not isinstance(value, bool) and _meaningful(-value):
            return _key(-value)
    return None


def _meaningful(value: object) -> bool:
    if isinstance(value, str | bytes):
        return len(value) > 1 and value not in TRIVIAL
    if isinstance(value, int | float | complex):
        return value not in TRIVIAL
    return False


def _key(value: object) -> str:
    """33 and 33.0 are one value to a test's `==`."""
    if isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer():
        return repr(int(value)) if abs(value) < 2**53 else repr(value)
    return repr(value)


def _broad(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type
    if kinds is None:
        return True
    names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    return any(dotted(n).rpartition(".")[2] in BROAD for n in names)


def _reraises(handler: ast.ExceptHandler) -> bool:
    return any(isinstance(n, ast.Raise) for stmt in handler.body for n in ast.walk(stmt))


def _ignored_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    if _is_stub(function):
        return []
    args = function.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names = [n for n in names if n not in ("self", "cls") and not n.startswith("_")]
    read = {
        n.id
        for stmt in function.body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load | ast.Del)
    }
    # locals(), vars() or an inner eval read names we cannot see
    if {"locals", "vars", "eval", "exec"} & read:
        return []
    return [n for n in names if n not in read]


def _is_stub(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = [s for s in function.body if not _is_docstring(s)]
    if not body:
        return True
    if len(body) == 1:
        only = body[0]
        if isinstance(only, ast.Pass | ast.Raise):
            return True
        if (
            isinstance(only, ast.Expr)
            and isinstance(only.value, ast.Constant)
            and only.value.value is Ellipsis
        ):
            return True
    # an overridden hook or callback keeps its signature whatever it uses
    return any(
        dotted(d).rpartition(".")[2] in ("override", "abstractmethod") for d in function.decorator_list
    )


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _test_literals(failing_tests: Mapping[str, str]) -> Counter:
    """The meaningful literal values of each failing test function and its decorators
    (parametrize); of the whole file when the function cannot be found."""
    found: Counter = Counter()
    for test_id, text in failing_tests.items():
        try:
            module = ast.parse(text)
        except SyntaxError:
            continue
        parts = [p.split("[", 1)[0] for p in test_id.split("::")[1:]]
        node: ast.AST | None = _find(module, parts) if parts else None
        found.update(filter(None, map(_literal, ast.walk(node if node is not None else module))))
    return found


def _find(module: ast.Module, parts: list[str]) -> ast.AST | None:
    body: list[ast.stmt] = module.body
    node: ast.AST | None = None
    for part in parts:
        node = next(
            (
                n for n in body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name == part
            ),
            None,
        )  # fmt: skip
        if node is None:
            return None
        body = getattr(node, "body", [])
    return node
