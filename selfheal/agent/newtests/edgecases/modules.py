"""How a test imports the changed function: the way the project's own tests do, else by path."""

from __future__ import annotations

from collections.abc import Sequence


def module_of(path: str, source_dirs: Sequence[str] = ()) -> str:
    """The dotted module of a source file: "src/pkg/core.py" -> "pkg.core" (with "src" among
    `source_dirs`), "pkg/__init__.py" -> "pkg"."""
    stem = path[:-3] if path.endswith(".py") else path
    for folder in sorted(source_dirs, key=len, reverse=True):
        prefix = folder.strip("/") + "/"
        if folder and stem.startswith(prefix):
            stem = stem[len(prefix) :]
            break
    parts = [p for p in stem.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def source_dirs_for(path: str, given: Sequence[str] | None) -> tuple[str, ...]:
    """Folders put on sys.path besides the repo root: the caller's, else `src` for a src layout."""
    if given is not None:
        return tuple(given)
    return ("src",) if path.startswith("src/") else ()


def import_lines(
    bind: str, test_modules: Sequence[str], module: str | None, file_module: str
) -> tuple[str, ...]:
    """Candidate `from M import <bind>` lines, best first: modules the tests import it from (a
    package that re-exports it reads best), the caller's module, then the file's own module. The
    probe keeps the first one that really reaches the changed file."""
    modules = [*test_modules, module, file_module]
    return tuple(dict.fromkeys(f"from {m} import {bind}" for m in modules if m))
