"""What a repository needs installed before its tests can run, and which image fits it.

Read from the files the repo declares, never by running its code: requirements files at the top
(and the files they include), `[project] dependencies` and test-ish optional extras of
pyproject.toml. What is the repository's own code — the project itself when its metadata is
dynamic (setup.py, dynamic dependencies), a local path in a requirements file (`-e .`,
`./libs/x`) — is a *local project*: the docker backend builds those without a network (see
container.py), so that no code of the repository ever runs where it could reach one.

The rest goes to pip in a set-up step with a network, so every line and entry is classified
first, the way pip itself would read it: a name for the package index, a local path, or a place
of the repository's choosing — another index (`--index-url`, `--extra-index-url`, `--find-links`,
`--trusted-host`), a VCS checkout (`git+…`) or a direct URL (`https://…`, `name @ https://…`).
Those are refused (SetupRefused) unless the operator allows them; what cannot be classified is
refused whatever the operator allows. pip reads the copies written here, never the repository's
files, so what it reads is what was classified.
"""

from __future__ import annotations

import codecs
import optparse
import posixpath
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from selfheal.sandbox.exceptions import SetupRefused

REQUIREMENT_FILES = (
    "requirements.txt", "requirements-dev.txt", "requirements-test.txt", "requirements_dev.txt",
    "requirements_test.txt", "dev-requirements.txt", "test-requirements.txt",
    "requirements/test.txt", "requirements/dev.txt", "requirements/base.txt",
)  # fmt: skip
TEST_EXTRAS = ("test", "tests", "testing", "dev")
DEFAULT_BUILD_REQUIRES = ("setuptools>=40.8.0", "wheel")  # pip's own default for a project without one
VCS_PREFIXES = ("git+", "hg+", "svn+", "bzr+")
DEFAULT_PYTHON = "3.12"
DEFAULT_IMAGE = f"python:{DEFAULT_PYTHON}-slim"  # what `auto` probes for, before any repository is read
KNOWN_PYTHONS = ("3.13", "3.12", "3.11", "3.10", "3.9", "3.8")

ALLOW_FLAG = "--allow-direct-requirements"
HOW_TO_ALLOW = (
    f"the operator allows them with {ALLOW_FLAG} (the Action's input allow-direct-requirements, "
    f"the bot server's {ALLOW_FLAG})"
)
SHOWN_REFUSALS = 5

# What pip's requirements-file reader does before it parses a line (pip/_internal/req/req_file.py),
# so that a line is classified as pip will read it: comments, continuations, ${VAR}.
_COMMENT = re.compile(r"(^|\s+)#.*$")
_ENV_VAR = re.compile(r"\$\{[A-Z0-9_]+\}")
# pip decodes a requirements file by its BOM (in this order), else by a PEP 263 line
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF32, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
)  # fmt: skip
_CODING = re.compile(rb"coding[:=]\s*([-\w.]+)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_INDEX_OPTIONS = {
    "index_url": "another package index (--index-url)",
    "extra_index_urls": "another package index (--extra-index-url)",
    "find_links": "a place pip would search for packages (--find-links)",
    "trusted_hosts": "a host pip would trust without checking its certificate (--trusted-host)",
}


@dataclass(frozen=True)
class Refusal:
    where: str  # "requirements.txt line 3", "pyproject.toml [project] dependencies"
    entry: str  # the line or entry, credentials in URLs masked
    reason: str
    allowable: bool  # the operator's switch allows it (another index, a VCS checkout, a URL)


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


def read_requirement_files(
    workspace: Path, names: tuple[str, ...], *, allow_direct: bool = False
) -> tuple[dict[str, str], list[str], list[Refusal]]:
    """The requirement files `names` and those they include (`-r`, `-c`), each as pip is to
    read it, by path; the local paths they name; and the lines refused.

    The text kept for pip is the file's logical lines, classified, at their own line numbers:
    no comment (pip honours a PEP 263 line in a comment), nothing joined or expanded later."""
    texts: dict[str, str] = {}
    local: list[str] = []
    refusals: list[Refusal] = []
    pending = list(names)
    while pending:
        name = pending.pop(0)
        path = (workspace / name).resolve()
        if name in texts or not path.is_file() or workspace.resolve() not in path.parents:
            continue
        physical = _decode(path.read_bytes()).splitlines()
        kept = [""] * len(physical)
        for number, line in _logical_lines(physical):
            where = f"{name} line {number}"
            verdict = _classify_line(line, name, where, allow_direct)
            refusals += verdict.refusals
            pending += verdict.included
            local += verdict.local
            if verdict.keep:
                kept[number - 1] = line
        texts[name] = "\n".join(kept) + "\n"
    return texts, local, refusals


@dataclass(frozen=True)
class _Verdict:
    keep: bool
    local: tuple[str, ...] = ()
    included: tuple[str, ...] = ()  # files to read next, by path in the workspace
    refusals: tuple[Refusal, ...] = ()


def _classify_line(line: str, name: str, where: str, allow_direct: bool) -> _Verdict:
    shown = _masked(line)
    variable = _ENV_VAR.search(line)
    if variable:
        # pip would fill it from the set-up container's environment, which is selfheal's (and the
        # image's), never the repository's to read
        reason = f"reads {variable.group(0)} from the set-up's environment"
        return _Verdict(False, refusals=(Refusal(where, shown, reason, False),))
    args, options_text = _break_args_options(line)
    try:
        options = _line_parser().parse_args(shlex.split(options_text))[0]
    except (ValueError, _OptionError) as exc:
        reason = f"options selfheal cannot read ({exc}); pip is handed only lines it classified"
        return _Verdict(False, refusals=(Refusal(where, shown, reason, False),))
    refusals = [
        Refusal(where, shown, reason, True)
        for dest, reason in _INDEX_OPTIONS.items()
        if getattr(options, dest) and not allow_direct
    ]
    included = []
    for target in [*options.requirements, *options.constraints]:
        if _SCHEME.match(target):
            if not allow_direct:
                refusals.append(Refusal(where, shown, "a requirements file fetched from a URL", True))
            continue
        # pip reads an included file's path from the including file's folder: the copies keep
        # the layout, so the line stays as it is
        included_name = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        if included_name.startswith(("../", "/")) or included_name == "..":
            # its copy would land outside the copies' folder, and pip would read what is there
            reason = "includes a file outside the repository's folder"
            refusals.append(Refusal(where, shown, reason, False))
            continue
        included.append(included_name)
    local = []
    for editable in options.editables:
        kind, path = _classify_editable(editable)
        if kind == "local":
            local.append(path)
        elif not allow_direct:
            refusals.append(Refusal(where, shown, _KIND_REASONS[kind], True))
    if args:
        kind, path = classify_requirement(args)
        if kind == "local":
            local.append(path)
        elif kind != "index" and not allow_direct:
            refusals.append(Refusal(where, shown, _KIND_REASONS[kind], True))
    keep = not local and not refusals
    return _Verdict(keep, tuple(local), tuple(included), tuple(refusals))


_KIND_REASONS = {
    "vcs": "a version-control checkout, fetched and built with the network",
    "url": "a direct URL, downloaded from where the repository says",
}


def classify_requirement(text: str) -> tuple[str, str]:
    """What pip makes of a requirement (no options): ("index", ""), ("local", path[extras]),
    ("vcs", "") or ("url", "")."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        requirement = None
    if requirement is not None:
        if requirement.url is None:
            return "index", ""
        kind, path = _url_kind(requirement.url)
        extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras and path else ""
        return kind, path + extras
    # not PEP 508: a URL, a path, or something pip refuses itself
    head = text.split(";", 1)[0].strip()
    if head.lower().startswith(VCS_PREFIXES) or _SCHEME.match(head):
        return _url_kind(head)
    if head.startswith((".", "/")) or "/" in head or "\\" in head:
        return "local", head
    return "index", ""


def _classify_editable(text: str) -> tuple[str, str]:
    """pip takes `-e` as a local project, or as a VCS URL (`git:` meaning `git+git:`)."""
    lowered = text.lower()
    if lowered.startswith(VCS_PREFIXES) or lowered.startswith(("git:", "hg:", "svn:", "bzr:")):
        return "vcs", ""
    if _SCHEME.match(text):
        return _url_kind(text)
    return "local", text


def _url_kind(url: str) -> tuple[str, str]:
    lowered = url.lower()
    if lowered.startswith(VCS_PREFIXES):
        return "vcs", ""
    if lowered.startswith("file:"):
        path = url[len("file:") :]
        if path.startswith("//"):  # file://host/path: only the local host's paths are files
            path = path[2:].removeprefix("localhost")
        return "local", unquote(path) or "."
    if _SCHEME.match(url):
        return "url", ""
    return "local", url


def _declared(
    where: str, entries: list, allow_direct: bool
) -> tuple[list[str], list[tuple[str, str]], list[Refusal]]:
    """Entries of pyproject.toml (or a build backend's metadata), which pip gets as arguments:
    each must be a PEP 508 requirement, or pip would read it as an option or a path. The entries
    for pip, the local paths among them (entry, path), and what is refused."""
    from packaging.requirements import InvalidRequirement, Requirement

    kept: list[str] = []
    local: list[tuple[str, str]] = []
    refusals: list[Refusal] = []
    for entry in entries:
        text = entry if isinstance(entry, str) else repr(entry)
        try:
            Requirement(text)
        except InvalidRequirement:
            reason = "not a PEP 508 requirement (pip would read it as an option or a path)"
            refusals.append(Refusal(where, _masked(text), reason, False))
            continue
        kind, path = classify_requirement(text)
        if kind == "index":
            kept.append(text)
        elif kind == "local":
            local.append((text, path))
        elif allow_direct:
            kept.append(text)
        else:
            refusals.append(Refusal(where, _masked(text), _KIND_REASONS[kind], True))
    return kept, local, refusals


def declared_requirements(where: str, entries: list, *, allow_direct: bool = False) -> list[str]:
    """What a build backend reported its project requires, for pip with a network: raises
    SetupRefused for what the operator did not allow; a local path is the repository's own code
    (built without a network, or not at all) and is left out."""
    kept, _, refusals = _declared(where, entries, allow_direct)
    refuse(refusals)
    return kept


def refuse(refusals: list[Refusal]) -> None:
    """Raise SetupRefused naming every refused line (the first few) and what would allow them."""
    if not refusals:
        return
    shown = "; ".join(f"{r.where}: {r.entry!r}: {r.reason}" for r in refusals[:SHOWN_REFUSALS])
    if len(refusals) > SHOWN_REFUSALS:
        shown += f"; and {len(refusals) - SHOWN_REFUSALS} more"
    tail = []
    if any(r.allowable for r in refusals):
        tail.append(
            "the set-up downloads only from the operator's package index (pip's own configuration "
            f"in the sandbox's image); another index, a VCS checkout or a URL: {HOW_TO_ALLOW}"
        )
    if not all(r.allowable for r in refusals):
        tail.append("what selfheal cannot classify it never hands to pip, whatever the operator allows")
    raise SetupRefused(f"dependency setup refused before pip was asked for it: {shown}. {'; '.join(tail)}")


def _masked(text: str) -> str:
    """The line as shown in a message: no user or password of a URL, at most 160 characters."""
    masked = re.sub(r"(?<=://)[^/@\s]+@", "***@", text)
    return masked if len(masked) <= 160 else masked[:157] + "..."


def _decode(data: bytes) -> str:
    """The file's text as pip would decode it. What cannot be decoded is replaced rather than
    refused: pip reads the UTF-8 copy written from this text, never the file itself."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors="replace")
    for line in data.split(b"\n")[:2]:
        found = _CODING.search(line) if line[:1] == b"#" else None
        if found:
            try:
                return data.decode(found.group(1).decode("ascii"), errors="replace")
            except LookupError:
                break
    return data.decode("utf-8", errors="replace")


def _logical_lines(physical: list[str]) -> list[tuple[int, str]]:
    """pip's join_lines and ignore_comments: (number of the first line, the line) for every line
    that is not empty once continuations are joined and comments taken out."""
    joined: list[tuple[int, str]] = []
    pending: list[str] = []
    first = 0
    for number, line in enumerate(physical, start=1):
        if not line.endswith("\\") or _COMMENT.match(line):
            if _COMMENT.match(line):
                line = " " + line
            if pending:
                joined.append((first, "".join([*pending, line])))
                pending = []
            else:
                joined.append((number, line))
        else:
            if not pending:
                first = number
            pending.append(line.strip("\\"))
    if pending:
        joined.append((first, "".join(pending)))
    stripped = [(number, _COMMENT.sub("", line).strip()) for number, line in joined]
    return [(number, line) for number, line in stripped if line]


def _break_args_options(line: str) -> tuple[str, str]:
    """pip's split of a line into its requirement and its options: at the first word that
    starts with a dash."""
    tokens = line.split(" ")
    for index, token in enumerate(tokens):
        if token.startswith("-"):
            return " ".join(tokens[:index]), " ".join(tokens[index:])
    return line, ""


class _OptionError(Exception):
    pass


class _LineParser(optparse.OptionParser):
    def error(self, msg: str) -> None:  # type: ignore[override]
        raise _OptionError(msg)

    def exit(self, status: int = 0, msg: str | None = None) -> None:  # type: ignore[override]
        raise _OptionError(msg or "")


def _line_parser() -> optparse.OptionParser:
    """The options pip reads in a requirements file, with pip's names: optparse takes an
    abbreviation (`--extra` for `--extra-index-url`) and a value joined to its option (`-ihttp://…`)
    here as pip does."""
    parser = _LineParser(add_help_option=False)
    add = parser.add_option
    add("-i", "--index-url", "--pypi-url", dest="index_url")
    add("--extra-index-url", dest="extra_index_urls", action="append", default=[])
    add("--no-index", action="store_true")
    add("-c", "--constraint", dest="constraints", action="append", default=[])
    add("-r", "--requirement", dest="requirements", action="append", default=[])
    add("-e", "--editable", dest="editables", action="append", default=[])
    add("-f", "--find-links", dest="find_links", action="append", default=[])
    add("--no-binary", action="append")
    add("--only-binary", action="append")
    add("--prefer-binary", action="store_true")
    add("--require-hashes", action="store_true")
    add("--pre", action="store_true")
    add("--trusted-host", dest="trusted_hosts", action="append", default=[])
    add("--use-feature", action="append")
    add("--global-option", action="append")
    add("--hash", action="append")
    add("-C", "--config-settings", action="append")
    return parser


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
        kept, paths, refused = _declared(where, [entry], allow_direct_requirements)
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
    kept, local, refusals = _declared(where, requires, allow_direct)
    if allow_direct:
        kept += [entry for entry, _ in local]
    else:
        reason = "a local path, which pip would build with the network"
        refusals += [Refusal(where, _masked(entry), reason, True) for entry, _ in local]
    refuse(refusals)
    return tuple(kept)


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
