"""pytest plugins that came with selfheal's own installation, which the repository never asked for.

    unasked_plugins(python, repo) -> ("anyio", ...)    each run adds `-p no:<name>` for them

Where the tests run on the interpreter selfheal itself runs on, pytest also loads the plugins that
selfheal's own dependencies registered (anyio's, brought by httpx), and those of the extras
installed with it (a development install's pytest-xdist). The repository did not ask for them:
they change nothing its tests rely on, yet each one is imported by every run, and a heal runs the
tests dozens of times (anyio's alone costs about 0.2 s a run). A plugin stays where the repository
names it anywhere in its configuration, requirements or Python files, and every plugin stays
where the tests run on another interpreter (the repository's own venv, `--python`, a
container's): there, what is installed is the repository's choice.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from selfheal.sandbox import STATE_DIR

OWN_DISTRIBUTION = "selfheal"
# where a repository says which plugins it uses: its configuration, requirements and Python files
TEXT_SUFFIXES = (".py", ".toml", ".cfg", ".ini", ".txt", ".in")
SKIPPED_FOLDERS = frozenset(
    {".git", ".selfheal", STATE_DIR, ".venv", "venv", "node_modules", "__pycache__", ".tox"}
)
MAX_FILES = 5000
MAX_FILE_BYTES = 1 << 20


def unasked_plugins(python: str, repo: Path) -> tuple[str, ...]:
    """The pytest plugin names to block on `python` for `repo`'s tests: those registered by
    selfheal's own requirements, where `python` is selfheal's own interpreter and the repository
    names neither the plugin nor its distribution."""
    if not _is_own_interpreter(python):
        return ()
    plugins = _own_requirement_plugins()
    if not plugins:
        return ()
    names = {plugin: {plugin, dist, *_dotted_parts(plugin)} for plugin, dist in plugins}
    named = _named_in(repo, set().union(*names.values()))
    return tuple(sorted(plugin for plugin, its_names in names.items() if not its_names & named))


def _is_own_interpreter(python: str) -> bool:
    """Whether `python` runs in selfheal's own environment (the same prefix: a venv's python is
    a link to the base interpreter, so the environment, not the binary, is compared)."""
    prefix = Path(python).absolute().parent.parent
    try:
        return os.path.samefile(prefix, sys.prefix)
    except OSError:
        return False


@cache
def _own_requirement_plugins() -> frozenset[tuple[str, str]]:
    """(plugin name, distribution) for each pytest11 entry point of a distribution selfheal's
    own requirements or one of its extras bring, where installed (not pytest itself)."""
    closure = _requirement_closure(OWN_DISTRIBUTION, _extra_requirements(OWN_DISTRIBUTION))
    closure.discard(_normalized("pytest"))
    found = set()
    for entry in metadata.entry_points(group="pytest11"):
        dist = getattr(entry, "dist", None)
        if dist is not None and _normalized(dist.name) in closure:
            found.add((entry.name, _normalized(dist.name)))
    return frozenset(found)


def _extra_requirements(root: str) -> list[str]:
    """What `root`'s extras require (a development install's test tools). Those not installed
    register no entry point, so they add nothing to the plugins found."""
    try:
        extras = metadata.metadata(root).get_all("Provides-Extra") or []
        requires = metadata.requires(root) or []
    except metadata.PackageNotFoundError:
        return []
    return list(dict.fromkeys(name for extra in extras for name in _holding(requires, extra)))


def _requirement_closure(root: str, also: Iterable[str] = ()) -> set[str]:
    """`root`'s requirements, those in `also`, and theirs, transitively (names normalized)."""
    seen: set[str] = set()
    pending = [*also, root]
    while pending:
        name = _normalized(pending.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = _requires(name)
        except metadata.PackageNotFoundError:
            continue
        pending.extend(_holding(requires))
    seen.discard(_normalized(root))
    return seen


def _requires(name: str) -> list[str]:
    """The distribution's Requires-Dist lines, read from the headers of its METADATA: the
    standard library's reader parses the whole file as an e-mail, long description included,
    which for some eighty distributions cost most of a heal's start. Where there is no METADATA
    (an egg-info install), its own reader."""
    dist = metadata.distribution(name)
    text = dist.read_text("METADATA")
    if text is None:
        return dist.requires or []
    headers = text.replace("\r\n", "\n").split("\n\n", 1)[0]
    return [
        line.partition(":")[2].strip()
        for line in headers.split("\n")
        if line.partition(":")[0].strip().lower() == "requires-dist"
    ]


def _holding(requires: Iterable[str], extra: str = "") -> Iterator[str]:
    """The names of requirements that hold with `extra` installed ("": with none)."""
    for line in requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.marker is None or requirement.marker.evaluate({"extra": extra}):
            yield requirement.name


def _named_in(repo: Path, words: set[str]) -> set[str]:
    """Which of `words` appear as whole words (any case, `-` and `_` alike) in the repository's
    text files."""
    if not words:
        return set()
    # the longest first, so that a name is not matched by a shorter one inside it
    either = (re.sub(r"\\-|_", "[-_]", re.escape(w.lower())) for w in words)
    spellings = sorted(either, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w-])(" + "|".join(spellings) + r")(?![\w-])")
    named: set[str] = set()
    for path in _text_files(repo):
        try:
            with path.open("rb") as handle:
                text = handle.read(MAX_FILE_BYTES).decode("utf-8", "replace").lower()
        except OSError:
            continue
        for match in pattern.finditer(text):
            spelled = _normalized(match.group(1))
            named.update(w for w in words if _normalized(w) == spelled)
        if named == words:
            break
    return named


def _text_files(repo: Path) -> Iterator[Path]:
    count = 0
    for folder, subfolders, files in os.walk(repo):
        subfolders[:] = sorted(s for s in subfolders if s not in SKIPPED_FOLDERS)
        for name in sorted(files):
            if name.endswith(TEXT_SUFFIXES) or name.startswith("requirements"):
                path = Path(folder) / name
                if path.is_symlink():
                    continue
                yield path
                count += 1
                if count >= MAX_FILES:
                    return


def _dotted_parts(plugin: str) -> tuple[str, ...]:
    """`anyio.pytest_plugin` -> ("anyio",): a module path's top-level package names it too."""
    return (plugin.split(".", 1)[0],) if "." in plugin else ()


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
