"""The project's Python files as the debugger sees them: definitions, signatures and call sites.

A `CodeBase` holds the texts: `sources` (the files a repair may change) and `readonly` (tests and
other Python files, read for context only). A `CodeIndex` parses them once and answers "where is
`Cart.total`, what does it look like, and who calls it?". Calls are matched by name, statically:
`x.total()` counts as a call of every method named `total`, which is what a reader of the code
would guess too.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from selfheal.agent.exceptions import WorkspaceError
from selfheal.agent.run.workspace import Workspace

MAX_FILE_CHARS = 1_000_000  # larger .py files are generated data, not code to read


@dataclass(frozen=True)
class CodeBase:
    sources: Mapping[str, str]  # repo-relative path -> text; what a repair may change
    readonly: Mapping[str, str] = field(default_factory=dict)  # tests and the rest: context only

    @property
    def files(self) -> dict[str, str]:
        """Every file, sources first."""
        return {**self.sources, **{p: t for p, t in self.readonly.items() if p not in self.sources}}

    def is_readonly(self, path: str) -> bool:
        return path not in self.sources

    @classmethod
    def from_workspace(cls, workspace: Workspace, sources: Mapping[str, str]) -> CodeBase:
        """`sources` plus every other Python file of the base snapshot, read-only."""
        others = [p for p in workspace.files if p.endswith(".py") and p not in sources]
        readonly: dict[str, str] = {}
        try:
            readonly = workspace.base_texts(others)
        except (UnicodeDecodeError, WorkspaceError):
            for path in others:  # one bad file must not hide the others
                try:
                    readonly[path] = workspace.base_text(path)
                except (UnicodeDecodeError, WorkspaceError):
                    continue
        return cls(dict(sources), {p: t for p, t in readonly.items() if len(t) <= MAX_FILE_CHARS})


@dataclass(frozen=True)
class Definition:
    file: str
    qualname: str  # "helper", "Cart.total", "outer.<locals>.inner"
    kind: str  # "function" | "method" | "class"
    line: int  # first line, decorators included
    def_line: int  # the `def` / `class` line
    end_line: int
    signature: str  # "def total(self) -> int", "class Cart(Base)"
    decorators: tuple[str, ...]
    docstring: str | None
    readonly: bool

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}-{self.end_line}"


@dataclass(frozen=True)
class CallSite:
    file: str
    line: int
    caller: str  # qualname of the enclosing function, or "<module>"
    text: str  # the source line, stripped
    readonly: bool


class CodeIndex:
    def __init__(self, codebase: CodeBase) -> None:
        self.codebase = codebase
        self.texts = codebase.files
        self.definitions: list[Definition] = []
        self.syntax_errors: dict[str, str] = {}
        self._calls: list[tuple[str, str, int, str, bool]] = []  # (name, file, line, caller, attribute)
        for path, text in self.texts.items():
            try:
                tree = ast.parse(text, filename=path)
            except (SyntaxError, ValueError) as exc:
                self.syntax_errors[path] = f"{type(exc).__name__}: {exc}"
                continue
            self._walk(path, tree, "", "<module>", in_class=False)

    # -- building -----------------------------------------------------------------------------
    def _walk(self, path: str, node: ast.AST, prefix: str, scope: str, *, in_class: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qualname = f"{prefix}{node.name}"
            self.definitions.append(self._definition(path, node, qualname, in_class))
            # decorators, bases and defaults run where the definition stands, not inside it
            for decorator in node.decorator_list:
                self._walk_expression(path, decorator, scope)
            if isinstance(node, ast.ClassDef):
                for base in (*node.bases, *(k.value for k in node.keywords)):
                    self._walk_expression(path, base, scope)
                for statement in node.body:
                    self._walk(path, statement, f"{qualname}.", scope, in_class=True)
            else:
                for default in (*node.args.defaults, *(d for d in node.args.kw_defaults if d)):
                    self._walk_expression(path, default, scope)
                for statement in node.body:
                    self._walk(path, statement, f"{qualname}.<locals>.", qualname, in_class=False)
            return
        if isinstance(node, ast.Call):
            self._record_call(path, node, scope)
        for child in ast.iter_child_nodes(node):
            self._walk(path, child, prefix, scope, in_class=in_class)

    def _walk_expression(self, path: str, node: ast.AST, scope: str) -> None:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                self._record_call(path, inner, scope)

    def _record_call(self, path: str, call: ast.Call, scope: str) -> None:
        if isinstance(call.func, ast.Name):
            self._calls.append((call.func.id, path, call.lineno, scope, False))
        elif isinstance(call.func, ast.Attribute):
            self._calls.append((call.func.attr, path, call.lineno, scope, True))

    def _definition(
        self,
        path: str,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
        qualname: str,
        in_class: bool,
    ) -> Definition:
        decorators = tuple(f"@{ast.unparse(d)}" for d in node.decorator_list)
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
            signature = f"class {node.name}({', '.join(bases)})" if bases else f"class {node.name}"
            kind = "class"
        else:
            prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
            signature = f"{prefix} {node.name}({ast.unparse(node.args)})"
            if node.returns is not None:
                signature += f" -> {ast.unparse(node.returns)}"
            kind = "method" if in_class else "function"
        return Definition(
            file=path,
            qualname=qualname,
            kind=kind,
            line=start,
            def_line=node.lineno,
            end_line=node.end_lineno or node.lineno,
            signature=signature,
            decorators=decorators,
            docstring=ast.get_docstring(node),
            readonly=self.codebase.is_readonly(path),
        )

    # -- queries ------------------------------------------------------------------------------
    def find(self, name: str, file: str | None = None) -> list[Definition]:
        """Definitions named `name` ("func", "Class.method", "pkg.module.func"), best first:
        exact qualified names before nested or same-named ones."""
        name = name.strip().removesuffix("()")
        pool = [d for d in self.definitions if file is None or d.file == file]
        module_file, rest = self._split_module(name)
        if module_file is not None and file is None:
            pool, name = [d for d in pool if d.file == module_file], rest
        exact = [d for d in pool if _plain(d.qualname) == name]
        if exact:
            return exact
        return [d for d in pool if _plain(d.qualname).endswith(f".{name}")]

    def _split_module(self, name: str) -> tuple[str | None, str]:
        """ "shop.prices.with_tax" -> ("shop/prices.py", "with_tax") when that file exists."""
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            stem = "/".join(parts[:cut])
            for candidate in (f"{stem}.py", f"{stem}/__init__.py", f"src/{stem}.py"):
                if candidate in self.texts:
                    return candidate, ".".join(parts[cut:])
        return None, name

    def similar(self, name: str, limit: int = 5) -> list[str]:
        names = sorted({_plain(d.qualname) for d in self.definitions})
        short = {n.rsplit(".", 1)[-1]: n for n in names}
        found = difflib.get_close_matches(name, names, n=limit, cutoff=0.75)
        found += [short[n] for n in difflib.get_close_matches(name.rsplit(".", 1)[-1], list(short), n=limit)]
        return list(dict.fromkeys(found))[:limit]

    def same_name(self, definition: Definition) -> list[Definition]:
        """Other definitions sharing the short name (their calls look alike)."""
        return [d for d in self.definitions if d.name == definition.name and d != definition]

    def callers(self, definition: Definition) -> list[CallSite]:
        """Call sites of `definition` by name: `f(...)` and `x.f(...)` for a function or class,
        `x.f(...)` for a method; the definition's own recursion excluded. Sources first."""
        found = []
        for name, path, line, scope, attribute in self._calls:
            if name != definition.name:
                continue
            if definition.kind == "method" and not attribute:
                continue
            if path == definition.file and _plain(scope) == _plain(definition.qualname):
                continue
            text = _line(self.texts[path], line).strip()
            found.append(CallSite(path, line, _plain(scope), text, self.codebase.is_readonly(path)))
        return sorted(dict.fromkeys(found), key=lambda c: (c.readonly, c.file, c.line))

    def numbered(self, path: str, start: int, end: int) -> Iterator[str]:
        lines = self.texts[path].splitlines()
        width = len(str(min(end, len(lines))))
        for number in range(start, min(end, len(lines)) + 1):
            yield f"{number:>{width}} | {lines[number - 1]}"


def _plain(qualname: str) -> str:
    return qualname.replace(".<locals>.", ".")


def _line(text: str, number: int) -> str:
    lines = text.splitlines()
    return lines[number - 1] if 0 < number <= len(lines) else ""
