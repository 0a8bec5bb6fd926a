"""What the set-up installs for a repository: its plan, and what building its own projects needs."""

from __future__ import annotations

import posixpath
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

from selfheal.sandbox.dependencies.classify import Refusal, declared, masked, read_requirement_files, refuse

REQUIREMENT_FILES = (
    "requirements.txt", "requirements-dev.txt", "requirements-test.txt", "requirements_dev.txt",
    "requirements_test.txt", "dev-requirements.txt", "test-requirements.txt",
    "requirements/test.txt", "requirements/dev.txt", "requirements/base.txt",
)  # fmt: skip
TEST_EXTRAS = ("test", "tests", "testing", "dev")
DEFAULT_BUILD_REQUIRES = ("setuptools>=40.8.0", "wheel")  # pip's own default for a project without one


@dataclass(frozen=True)
class SetupPlan:
    requirement_files: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()
    install_project: str | None = None  # ".[test]" when the project must be installed itself
    # requirement files (and what they include) as pip is to read them, by path: the lines as
    # classified, with the local paths taken out (those are in `local`)
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


def plan_setup(workspace: Path, *, allow_direct_requirements: bool = False) -> SetupPlan:
    """What the set-up installs; SetupRefused when the repository asks it to reach beyond the
    package index and `allow_direct_requirements` is off, or for what cannot be classified."""
    files = tuple(name for name in REQUIREMENT_FILES if (workspace / name).is_file())
    entries: dict[str, str] = {}  # entry -> where it is declared
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
        for entry in project.get("dependencies", []):
            entries.setdefault(str(entry), "pyproject.toml [project] dependencies")
        for extra in extras:
            for entry in project["optional-dependencies"][extra]:
                entries.setdefault(str(entry), f"pyproject.toml [project.optional-dependencies] {extra}")
    elif project or (workspace / "setup.py").is_file() or (workspace / "setup.cfg").is_file():
        install_project = f".[{','.join(extras)}]" if extras else "."
    own_name = _normalize(project.get("name", "")) if project else ""
    requirements: list[str] = []
    local: list[str] = []
    refusals: list[Refusal] = []
    for entry, where in entries.items():
        # an extra that names the project itself (`pkg[test]` in its own extras) is already here
        if _normalize(_name_of(entry)) == own_name:
            continue
        kept, paths, refused = declared(where, [entry], allow_direct_requirements)
        requirements += kept
        local += [path for _, path in paths]
        refusals += refused
    texts, named, refused = read_requirement_files(workspace, files, allow_direct=allow_direct_requirements)
    refuse([*refused, *refusals])
    return SetupPlan(
        files, tuple(requirements), install_project, tuple(sorted(texts.items())),
        tuple(dict.fromkeys([*named, *local])),
    )  # fmt: skip


def build_requirements(workspace: Path, project: str, *, allow_direct: bool = False) -> tuple[str, ...]:
    """What building a local project needs installed first: its `[build-system] requires`, which
    pip installs with a network (so classified as the plan's entries are; a local path among them
    would be the repository's code built there, and is refused unless the operator allows it)."""
    folder = project.split("[")[0]
    pyproject = workspace / folder / "pyproject.toml"
    try:
        system = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("build-system", {})
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return DEFAULT_BUILD_REQUIRES
    requires = system.get("requires")
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        return DEFAULT_BUILD_REQUIRES
    where = f"{posixpath.join(posixpath.normpath(folder), 'pyproject.toml')} [build-system] requires"
    kept, local, refusals = declared(where, requires, allow_direct)
    if allow_direct:
        kept += [entry for entry, _ in local]
    else:
        reason = "a local path, which pip would build with the network"
        refusals += [Refusal(where, masked(entry), reason, True) for entry, _ in local]
    refuse(refusals)
    return tuple(kept)


def _name_of(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
