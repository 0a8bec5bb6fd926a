"""The import direction of DESIGN.md, checked on the source (not on what happens to be loaded).

sandbox imports nothing of ours; agent never imports bot or action; nothing imports evaluation.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "selfheal"

ALLOWED = {
    "sandbox": set(),
    "agent": {"sandbox"},
    "bot": {"agent", "sandbox"},
    "action": {"bot", "agent"},
    "evaluation": {"agent", "sandbox"},
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found.add("<relative>")
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "evaluation":
        return "evaluation"
    if parts[0] != "selfheal" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ALLOWED else "top"


def python_files() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    evaluation = ROOT / "evaluation"
    if evaluation.is_dir():
        files += sorted(evaluation.rglob("*.py"))
    return files


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_layer_imports_only_what_it_may(path: Path):
    rel = path.relative_to(ROOT)
    own = (
        "evaluation"
        if rel.parts[0] == "evaluation"
        else (rel.parts[1] if len(rel.parts) > 2 and rel.parts[1] in ALLOWED else "top")
    )
    modules = imported_modules(path)
    assert "<relative>" not in modules, f"{rel}: use absolute imports so the layers stay visible"
    for module in modules:
        target = layer_of(module)
        if target is None or target == own:
            continue
        if target == "evaluation":
            pytest.fail(f"{rel} imports {module}: nothing may import evaluation")
        if own == "top":
            continue  # the CLI composes the layers
        assert target in ALLOWED[own], f"{rel} ({own}) may not import {module} ({target})"


def test_the_runtime_helpers_import_only_the_standard_library_and_pytest():
    runtime = PACKAGE / "agent" / "runtime"
    for path in runtime.glob("selfheal_*.py"):
        for module in imported_modules(path):
            top = module.split(".")[0]
            assert top not in ("selfheal", "rich"), f"{path.name} runs in the sandbox: {module}"
