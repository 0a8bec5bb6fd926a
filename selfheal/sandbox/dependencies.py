"""What a repository needs installed before its tests can run, and which image fits it.

Read from the files the repo declares, never by running its code: requirements files at the top
(and the files they include), `[project] dependencies` and test-ish optional extras of
pyproject.toml. What is the repository's own code — the project itself when its metadata is
dynamic (setup.py, dynamic dependencies), a local path in a requirements file (`-e .`,
`./libs/x`) — is a *local project*: the docker backend builds those without a network (see
container.py), so that no code of the repository ever runs where it could reach one.
"""

from __future__ import annotations

import posixpath
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
DEFAULT_BUILD_REQUIRES = ("setuptools>=40.8.0", "wheel")  # pip's own default for a project without one
URL_SCHEMES = ("http://", "https://", "git+", "hg+", "svn+", "bzr+")
DEFAULT_PYTHON = "3.12"
DEFAULT_IMAGE = f"python:{DEFAULT_PYTHON}-slim"  # what `auto` probes for, before any repository is read
KNOWN_PYTHONS = ("3.13", "3.12", "3.11", "3.10", "3.9", "3.8")


@dataclass(frozen=True)
class SetupPlan:
    requirement_files: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()
    install_project: str | None = None  # ".[test]" when the project must be installed itself
    # requirement files (and what they include) with their local paths taken out, by path; the
    # local paths themselves are in `local`
    filtered: tuple[tuple[str, str], ...] = ()
    local: tuple[str, ...] = ()  # local paths a requirements file names ("." for `-e .`)

    @property
    def empty(self) -> bool:
        return not (self.requirement_files or self.requirements or self.install_project or self.local)

    @property
    def local_projects(self) -> tuple[str, ...]:
        """The repository's own code to build and install, each once as `path[extras]` (the
        extras of every mention of the path together)."""
        extras: dict[str, list[str]] = {}
        for project in [self.install_project, *self.local] if self.install_project else self.local:
            path, _, rest = project.partition("[")
            path = posixpath.normpath(path.removeprefix("file:")) or "."
            listed = extras.setdefault(path, [])
            listed += [
                e.strip() for e in rest.rstrip("]").split(",") if e.strip() and e.strip() not in listed
            ]
        return tuple(f"{path}[{','.join(found)}]" if found else path for path, found in extras.items())

    def pip_arguments(self, folder: str = "") -> list[str]:
        """Everything pip installs from an index: no local project among them. The requirement
        files as paths under `folder`, where their copies are."""
        args: list[str] = []
        for name in self.requirement_files:
            args += ["-r", posixpath.join(folder, name)]
        args += list(self.requirements)
        return args

    def describe(self) -> str:
        shown = [*self.pip_arguments(), *self.local_projects]
        return " ".join(shlex.quote(a) for a in shown) or "nothing"


def read_requirement_files(workspace: Path, names: tuple[str, ...]) -> tuple[dict[str, str], list[str]]:
    """The requirement files `names` and those they include (`-r`, `-c`), each with its local
    paths left out, by path; and the local paths. A file outside the workspace is not followed."""
    texts: dict[str, str] = {}
    local: list[str] = []
    pending = list(names)
    while pending:
        name = pending.pop(0)
        path = (workspace / name).resolve()
        if name in texts or not path.is_file() or workspace.resolve() not in path.parents:
            continue
        kept = []
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
            words = line.split()
            if words[:1] in (["-r"], ["--requirement"], ["-c"], ["--constraint"]) and len(words) > 1:
                # pip reads an included file's path from the including file's folder: the copies
                # keep the layout, so the line stays as it is
                pending.append(posixpath.normpath(posixpath.join(posixpath.dirname(name), words[1])))
                kept.append(raw)
                continue
            target = words[1] if words[:1] in (["-e"], ["--editable"]) and len(words) > 1 else line
            if line and _is_local(target):
                local.append(target.removeprefix("file:"))
                continue
            kept.append(raw)
        texts[name] = "\n".join(kept) + "\n"
    return texts, local


def _is_local(target: str) -> bool:
    """A requirement that names a path (or a file: URL) rather than a package of an index."""
    if target.startswith("-") or target.startswith(URL_SCHEMES):
        return False
    return target.startswith((".", "/", "file:")) or " @ file:" in target


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
    texts, local = read_requirement_files(workspace, files)
    return SetupPlan(
        files, tuple(requirements), install_project, tuple(sorted(texts.items())), tuple(dict.fromkeys(local))
    )


def build_requirements(workspace: Path, project: str) -> tuple[str, ...]:
    """What building a local project needs installed first: its `[build-system] requires`."""
    pyproject = workspace / project.split("[")[0] / "pyproject.toml"
    try:
        system = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("build-system", {})
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return DEFAULT_BUILD_REQUIRES
    requires = system.get("requires")
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        return DEFAULT_BUILD_REQUIRES
    return tuple(requires)


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
