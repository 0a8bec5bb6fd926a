"""Reads of the process's circumstances: where a test run and a user's call differ.

    added_circumstances(scope, previous) -> Counter   the reads and runner names a patch added
    detect_test_run(base_texts, patched_texts, failing_tests) -> list[Detection]

The environment, `sys.argv`, `sys.modules`, the call stack: code can read them to notice it runs
under a test runner, and answer the tests one way and a user another. The overfit review
(overfit.py) lists every read a patch adds as a risk, since a real fix may read them too. The
verdict (rule 12) refuses a patch that uses them to tell a test run apart: a read of the
environment, the arguments or the loaded modules in a scope where the patch also adds a string
naming a test runner (pytest, `PYTEST_*`, unittest, selfheal, conftest), or any inspection of the
call stack, unless the failing tests are about that very circumstance (they read or set it:
`monkeypatch.setenv` for the environment, `sys.argv` for the arguments, and so on).

Only what the patch added counts, scope by scope (each function, and the module's own statements).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

ENVIRONMENT, ARGUMENTS, MODULES, STACK, PROCESS = (
    "environment",
    "arguments",
    "loaded modules",
    "stack",
    "process",
)
# Reads of the process's circumstances, and which circumstance each is.
CIRCUMSTANCE_READS: dict[str, str] = {
    "os.environ": ENVIRONMENT, "os.environb": ENVIRONMENT, "os.getenv": ENVIRONMENT,
    "getenv": ENVIRONMENT, "environ": ENVIRONMENT,
    "sys.argv": ARGUMENTS, "sys.orig_argv": ARGUMENTS,
    "sys.modules": MODULES, "importlib.util.find_spec": MODULES, "importlib.import_module": MODULES,
    "builtins.__import__": MODULES, "__import__": MODULES,
    "sys._getframe": STACK, "inspect.stack": STACK, "inspect.currentframe": STACK,
    "inspect.getouterframes": STACK, "inspect.trace": STACK, "traceback.extract_stack": STACK,
    "traceback.format_stack": STACK, "traceback.walk_stack": STACK, "traceback.print_stack": STACK,
    "sys._current_frames": STACK,
    "sys.gettrace": PROCESS, "sys.getprofile": PROCESS, "sys.flags": PROCESS, "os.getppid": PROCESS,
}  # fmt: skip
# Strings that may name a test runner or CI (the overfit review's wider net) ...
TEST_RUNNER_WORDS = re.compile(r"pytest|unittest|nose|tox|selfheal|PYTEST|conftest|\bCI\b")
# ... and those that can only name one (what the verdict refuses with a read).
RUNNER_NAMES = re.compile(r"pytest|unittest|selfheal|conftest", re.IGNORECASE)
# What a test does to set up a circumstance it is about, besides reading it.
SETTING_UP: dict[str, str] = {
    "setenv": ENVIRONMENT, "delenv": ENVIRONMENT, "putenv": ENVIRONMENT, "unsetenv": ENVIRONMENT,
    "settrace": PROCESS, "setprofile": PROCESS,
}  # fmt: skip
# A name a test patches by string (`monkeypatch.setattr(sys, "argv", ...)`, `mock.patch.dict("os.environ")`).
NAMED_IN_STRINGS: dict[str, str] = {
    "environ": ENVIRONMENT, "os.environ": ENVIRONMENT, "argv": ARGUMENTS, "sys.argv": ARGUMENTS,
    "modules": MODULES, "sys.modules": MODULES, "_getframe": STACK, "sys._getframe": STACK,
}  # fmt: skip


@dataclass(frozen=True)
class Detection:
    circumstance: str  # environment | arguments | loaded modules | stack | process
    function: str  # "path: qualname", or "path: module level"
    reads: tuple[str, ...]
    names: tuple[str, ...]  # the strings naming a test runner the patch added beside them

    def __str__(self) -> str:
        said = f" for {', '.join(self.names[:3])}" if self.names else ""
        return f"`{self.function}` reads {', '.join(self.reads[:4])}{said}"


def dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def scopes(module: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """Each function by qualified name, and the module's own statements as one more scope."""
    top = ast.Module(
        body=[
            s for s in module.body if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ],
        type_ignores=[],
    )
    yield "module level", top

    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + node.name, node
                yield from walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.")

    yield from walk(module.body, "")


def circumstances_in(scope: ast.AST | None) -> Counter:
    """("read", dotted name) for each read of a circumstance, ("runner_word", repr) for each
    string that may name a test runner."""
    found: Counter = Counter()
    for node in ast.walk(scope) if scope is not None else ():
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if TEST_RUNNER_WORDS.search(node.value):
                found["runner_word", repr(node.value)[:40]] += 1
        elif isinstance(node, ast.Attribute | ast.Name):
            name = dotted(node)
            if name in CIRCUMSTANCE_READS:
                found["read", name] += 1
    return found


def added_circumstances(scope: ast.AST, previous: ast.AST | None) -> Counter:
    """What `scope` reads of the circumstances that `previous` (its base version) did not."""
    return circumstances_in(scope) - circumstances_in(previous)


def detect_test_run(
    base_texts: Mapping[str, str], patched_texts: Mapping[str, str], failing_tests: Mapping[str, str]
) -> list[Detection]:
    """The reads a patch adds that tell a test run apart, each unless the failing tests are about
    that circumstance; `failing_tests` maps each failing test's id to its file's text."""
    about = circumstances_tests_touch(failing_tests)
    found: list[Detection] = []
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
            found += _detections_in(f"{path}: {name}", added_circumstances(scope, previous), about)
    return found


def _detections_in(where: str, added: Counter, about: set[str]) -> list[Detection]:
    reads = sorted({value for kind, value in added if kind == "read"})
    names = tuple(
        sorted({value for kind, value in added if kind == "runner_word" and RUNNER_NAMES.search(value)})
    )
    found = []
    for circumstance in dict.fromkeys(CIRCUMSTANCE_READS[r] for r in reads):
        if circumstance in about or (circumstance != STACK and not names):
            continue
        mine = tuple(r for r in reads if CIRCUMSTANCE_READS[r] == circumstance)
        found.append(Detection(circumstance, where, mine, names))
    return found


def circumstances_tests_touch(failing_tests: Mapping[str, str]) -> set[str]:
    """The circumstances the failing tests' files read or set up themselves."""
    touched: set[str] = set()
    for text in dict.fromkeys(failing_tests.values()):
        try:
            module = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(module):
            if isinstance(node, ast.Attribute | ast.Name):
                name = dotted(node)
                if name in CIRCUMSTANCE_READS:
                    touched.add(CIRCUMSTANCE_READS[name])
                last = node.attr if isinstance(node, ast.Attribute) else node.id
                if last in SETTING_UP:
                    touched.add(SETTING_UP[last])
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in NAMED_IN_STRINGS
            ):
                touched.add(NAMED_IN_STRINGS[node.value])
    return touched
