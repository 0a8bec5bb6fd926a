"""Generated tests: what a test generator proposes, and what the proof run made of it.

    TestCase   one proposed `def test_...():` with its imports, origin and reason
    TestFile   the cases for one target, rendered as one readable pytest module
    ProvenTest a case after it ran on the base code and on the patched code

Every generator (the model's spec_tests and qa_adversarial roles, the embedded engine's edge-case
generator) produces `TestCase`s; nothing it writes is trusted until `prove` (in `agent/testproof`)
ran it on both versions of the code. The verdict's rule 4: a shipped test fails on the base and
passes on the patch (fail_to_pass), or is labelled a guard.
"""

from __future__ import annotations

import ast
import keyword
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

FAIL_TO_PASS, GUARD = "fail_to_pass", "guard"
ORIGINS = ("spec_tests", "qa_adversarial", "embedded")
_NAME = re.compile(r"^test_[A-Za-z0-9_]+$")


@dataclass(frozen=True)
class TestCase:
    """One generated test function. `code` is a complete `def test_...():` (no imports: those are in
    `imports`, shared by the file). `reason` says in a few words what it checks, for the PR."""

    __test__ = False  # not a pytest test class

    name: str
    code: str
    origin: str
    reason: str = ""
    imports: tuple[str, ...] = ()
    target: str = ""  # "path/to/file.py::function" the test aims at
    # where its expected value comes from when that is a trustworthy oracle, not a version of the
    # code (e.g. "the docstring of merge"): such a test decides between fixes instead of following one
    oracle: str = ""

    def __post_init__(self) -> None:
        if not _NAME.match(self.name) or keyword.iskeyword(self.name):
            raise ValueError(f"not a test function name: {self.name!r}")
        if self.origin not in ORIGINS:
            raise ValueError(f"unknown origin {self.origin!r}")


@dataclass(frozen=True)
class ProvenTest:
    """A case after the proof run: how it did on the base code and on the patched code."""

    __test__ = False

    case: TestCase
    path: str  # the test file, relative to the healed project
    fails_on_base: bool
    passes_on_patch: bool
    base_message: str = ""  # how it failed on the base code, one line
    patch_message: str = ""  # how it failed on the patched code, when it did
    # the other fixes the tests allow (indices of the alternatives it ran on) on which it fails
    fails_on_alternatives: tuple[int, ...] = ()

    @property
    def nodeid(self) -> str:
        return f"{self.path}::{self.case.name}"

    @property
    def contested(self) -> bool:
        """It asserts what only some of the fixes the tests allow give, and no oracle backs it: a
        guess locked in, never shipped."""
        return self.passes_on_patch and bool(self.fails_on_alternatives) and not self.case.oracle

    @property
    def kind(self) -> str | None:
        """fail_to_pass, guard, or None for a test that cannot ship (fails on the patch, or is
        contested)."""
        if not self.passes_on_patch or self.contested:
            return None
        return FAIL_TO_PASS if self.fails_on_base else GUARD


@dataclass(frozen=True)
class TestFile:
    """Cases rendered as one pytest module, imports deduplicated and ordered."""

    __test__ = False

    path: str
    cases: tuple[TestCase, ...]
    header: str = ""  # the module docstring

    def render(self, labels: dict[str, str] | None = None) -> str:
        """The file's text. `labels` (test name -> comment) marks each test with what the proof
        showed, e.g. "fails on the base code, passes with the fix"."""
        labels = labels or {}
        imports = merge_imports(line for case in self.cases for line in case.imports)
        parts = [f'"""{self.header}"""\n' if self.header else ""]
        if imports:
            parts.append("\n".join(imports) + "\n")
        for case in self.cases:
            label = labels.get(case.name)
            comment = f"# {label}\n" if label else ""
            parts.append(f"\n\n{comment}{case.code.strip()}\n")
        return "".join(parts).lstrip("\n")


def merge_imports(lines: Iterable[str]) -> list[str]:
    """Import lines as a person writes them: `import x` lines first, then one `from m import a, b`
    per module, each group sorted. A line that does not parse as an import is kept as it is."""
    plain: set[str] = set()
    names: dict[str, set[str]] = {}
    other: list[str] = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            node = ast.parse(line).body[0] if len(ast.parse(line).body) == 1 else None
        except SyntaxError:
            node = None
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.setdefault(node.module, set()).update(
                a.name if a.asname is None else f"{a.name} as {a.asname}" for a in node.names
            )
        elif isinstance(node, ast.Import):
            plain.update(
                f"import {a.name}" if a.asname is None else f"import {a.name} as {a.asname}"
                for a in node.names
            )
        elif line not in other:
            other.append(line)
    merged = sorted(plain) + [
        f"from {module} import {', '.join(sorted(names[module]))}" for module in sorted(names)
    ]
    return merged + other


def check_case_code(case: TestCase) -> str | None:
    """Why `case.code` cannot go in a test file, or None: it must parse, be exactly one function
    named `case.name`, and not skip, xfail or hide failures."""
    try:
        tree = ast.parse(case.code)
    except SyntaxError as exc:
        return f"{case.name}: not valid Python ({exc.msg}, line {exc.lineno})"
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(tree.body) != 1 or len(functions) != 1:
        return f"{case.name}: `code` must be exactly one `def {case.name}(...):` and nothing else"
    if functions[0].name != case.name:
        return f"{case.name}: the function is named {functions[0].name!r}, not {case.name!r}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("skip", "xfail", "skipif", "importorskip"):
            return f"{case.name}: skip/xfail is not allowed in a generated test"
        if isinstance(node, ast.Try):
            return f"{case.name}: try/except in a generated test can hide a failure; use pytest.raises"
    imports = []
    for import_line in case.imports:
        try:
            parsed = ast.parse(import_line)
        except SyntaxError:
            return f"{case.name}: not an import line: {import_line!r}"
        if len(parsed.body) != 1 or not isinstance(parsed.body[0], ast.Import | ast.ImportFrom):
            return f"{case.name}: not an import line: {import_line!r}"
        imports.append(parsed)
    for node in [tree, *imports]:
        reach = reaches_outside(node)
        if reach:
            return (
                f"{case.name}: {reach}. A generated test may only call the code under test: no network, "
                "processes, signals, sleeping, environment variables, dynamic imports, or files it "
                "writes outside tmp_path or reads outside the project; test the function's result instead"
            )
    return None


# What a generated test never needs to check a function's result, and what a hostile or careless
# one would use to reach past it: refused before the test runs (the sandbox contains the rest).
FORBIDDEN_MODULES = frozenset({
    "socket", "ssl", "subprocess", "multiprocessing", "signal",
    "resource", "pty", "ctypes", "urllib", "http", "ftplib", "smtplib", "telnetlib", "xmlrpc",
    "requests", "httpx", "aiohttp", "urllib3", "shutil", "importlib", "runpy", "webbrowser",
})  # fmt: skip
FORBIDDEN_CALLS = frozenset({
    "os.system", "os.popen", "os.fork", "os.forkpty", "os.kill", "os.killpg", "os.getenv", "os.putenv",
    "os.unsetenv", "os.remove", "os.unlink", "os.rmdir", "os.removedirs", "os.rename", "os.replace",
    "os.chmod", "os.chown", "os.symlink", "os.link", "os.truncate", "os.startfile", "time.sleep",
    "os.environ", "os.environb", "sys.exit",
})  # fmt: skip
FORBIDDEN_NAMES = frozenset(
    {"__import__", "exec", "eval", "compile", "breakpoint", "__builtins__", "getattr"}
)
_EXEC_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn")
_WRITE_METHODS = frozenset({"write_text", "write_bytes", "unlink", "rmdir", "rename", "chmod",
                            "symlink_to", "hardlink_to", "touch", "mkdir"})  # fmt: skip
_TEMPORARY = ("tmp_path", "tmpdir", "tmp_path_factory")


def reaches_outside(tree: ast.AST) -> str:
    """What in `tree` (a generated test, or its import lines) reaches past the code under test, in
    a few words; "" when nothing does."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom):
                names += [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if name.split(".")[0] in FORBIDDEN_MODULES:
                    return f"it imports {name.split('.')[0]}"
                if name in FORBIDDEN_CALLS or name.startswith(_EXEC_PREFIXES):
                    return f"it imports {name}"
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted in FORBIDDEN_CALLS or dotted.startswith(_EXEC_PREFIXES):
                return f"it uses {dotted}"
            if node.attr in _WRITE_METHODS and not _mentions(node.value, _TEMPORARY):
                return f"it calls .{node.attr}() on a path outside tmp_path"
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            return f"it uses {node.id}"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
            problem = _open_problem(node)
            if problem:
                return problem
    return ""


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _mentions(node: ast.AST, names: tuple[str, ...]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _open_problem(call: ast.Call) -> str:
    mode = (
        call.args[1]
        if len(call.args) > 1
        else next((k.value for k in call.keywords if k.arg == "mode"), None)
    )
    path = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "file"), None)
    writes = not isinstance(mode, ast.Constant) or any(c in str(mode.value) for c in "wax+")
    if mode is None:
        writes = False
    if writes and (path is None or not _mentions(path, _TEMPORARY)):
        return "it opens a file for writing outside tmp_path"
    if isinstance(path, ast.Constant) and isinstance(path.value, str | bytes):
        text = path.value.decode("utf-8", "replace") if isinstance(path.value, bytes) else path.value
        if text.startswith(("/", "~", "\\")) or ".." in text.replace("\\", "/").split("/"):
            return f"it opens {text[:80]!r}, outside the project"
    return ""


@dataclass
class TestGeneration:
    """What the test generators did in one heal, for the report and the trace."""

    __test__ = False

    proven: list[ProvenTest] = field(default_factory=list)
    discarded: list[tuple[TestCase, str]] = field(default_factory=list)  # and why
    risks: list[str] = field(default_factory=list)  # crashes of the patched code on plausible inputs
    # what the patched code changed in the tree in a proof run, beyond the base code's run: the
    # patch's doing, which the verdict refuses (rule 9)
    patch_wrote: tuple[str, ...] = ()

    @property
    def shipped(self) -> list[ProvenTest]:
        return [p for p in self.proven if p.kind is not None]

    @property
    def contested(self) -> list[ProvenTest]:
        """Tests held back because the fixes the tests allow disagree on what they assert."""
        return [p for p in self.proven if p.contested]

    def refuting(self) -> dict[int, str]:
        """Alternative index -> the oracle test that fails on it (the first one found)."""
        found: dict[int, str] = {}
        for proven in self.shipped:
            if proven.case.oracle:
                for index in proven.fails_on_alternatives:
                    found.setdefault(index, f"{proven.case.name} ({proven.case.oracle})")
        return found


def module_name(path: str) -> str:
    """The dotted module a test imports for a source file: "src/pkg/core.py" -> "pkg.core",
    "pkg/__init__.py" -> "pkg"."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = [p for p in stem.split("/") if p]
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or posixpath.basename(stem)
