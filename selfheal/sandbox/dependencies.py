"""What a repository needs installed before its tests can run, and which image fits it.

Read from the files the repo declares, never by running its code: requirements files at the top,
`[project] dependencies` and test-ish optional extras of pyproject.toml; a project whose
metadata is dynamic (setup.py, dynamic dependencies) is installed itself so pip resolves it.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

REQUIREMENT_FILES = (
    "requirements.txt", "requirements-dev.txt", "requirements-test.txt", "requirements_dev.txt",
    "requirements_test.txt", "dev-requirements.txt", "test-requirements.txt",
    "requirements/test.txt", "requirements/dev.txt", "requirements/base.txt",
)  # fmt: skip
TEST_EXTRAS = ("test", "tests", "testing", "dev")
DEFAULT_PYTHON = "3.12"
KNOWN_PYTHONS = ("3.13", "3.12", "3.11", "3.10", "3.9", "3.8")


@dataclass(frozen=True)
class SetupPlan:
    requirement_files: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()
    install_project: str | None = None  # ".[test]" when the project must be installed itself

    @property
    def empty(self) -> bool:
        return not (self.requirement_files or self.requirements or self.install_project)

    def pip_arguments(self) -> list[str]:
        args: list[str] = []
        for name in self.requirement_files:
            args += ["-r", name]
        args += list(self.requirements)
        if self.install_project:
            args.append(self.install_project)
        return args

    def describe(self) -> str:
        return " ".join(shlex.quote(a) for a in self.pip_arguments()) or "nothing"


def plan_setup(workspace: Path) -> SetupPlan:
    files = tuple(name for name in REQUIREMENT_FILES if (workspace / name).is_file())
    requirements: list[str] = []
    install_project = None
    pyproject = workspace / "pyproject.toml"
    project: dict = {}
    if pyproject.is_file():
        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            project = {}
    dynamic = set(project.get("dynamic", ()))
    extras = [e for e in TEST_EXTRAS if e in project.get("optional-dependencies", {})]
    if project and not {"dependencies", "optional-dependencies"} & dynamic:
        requirements += [str(r) for r in project.get("dependencies", [])]
        for extra in extras:
            requirements += [str(r) for r in project["optional-dependencies"][extra]]
    elif project or (workspace / "setup.py").is_file() or (workspace / "setup.cfg").is_file():
        install_project = f".[{','.join(extras)}]" if extras else "."
    own_name = _normalize(project.get("name", "")) if project else ""
    # an extra that names the project itself (`pkg[test]` in its own extras) is already here
    requirements = [r for r in dict.fromkeys(requirements) if _normalize(_name_of(r)) != own_name]
    return SetupPlan(files, tuple(requirements), install_project)


def _name_of(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


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
