"""Which image fits a repository: the Python it asks for."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

DEFAULT_PYTHON = "3.12"
DEFAULT_IMAGE = f"python:{DEFAULT_PYTHON}-slim"  # what `auto` probes for, before any repository is read
KNOWN_PYTHONS = ("3.13", "3.12", "3.11", "3.10", "3.9", "3.8")


def python_version_for(workspace: Path) -> str:
    """The Python a repo asks for: `.python-version`, else 3.12 if `requires-python` allows it,
    else the newest version it allows."""
    pinned = workspace / ".python-version"
    if pinned.is_file():
        match = re.match(r"\s*(\d+\.\d+)", pinned.read_text(encoding="utf-8", errors="replace"))
        if match:
            return match.group(1)
    pyproject = workspace / "pyproject.toml"
    if not pyproject.is_file():
        return DEFAULT_PYTHON
    try:
        spec = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("requires-python")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return DEFAULT_PYTHON
    if not spec:
        return DEFAULT_PYTHON
    try:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
    except ImportError:
        return DEFAULT_PYTHON
    try:
        allowed = SpecifierSet(spec)
    except InvalidSpecifier:
        return DEFAULT_PYTHON
    if allowed.contains(f"{DEFAULT_PYTHON}.0", prereleases=True):
        return DEFAULT_PYTHON
    for version in KNOWN_PYTHONS:
        if allowed.contains(f"{version}.0", prereleases=True):
            return version
    return DEFAULT_PYTHON


def default_image(workspace: Path) -> str:
    return f"python:{python_version_for(workspace)}-slim"
