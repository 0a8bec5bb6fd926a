"""An interpreter the sandbox's uid can run, when the tests' own lies behind a closed folder.

As root without namespaces, the local sandbox runs the tests as a uid of its own, which cannot
pass through a folder closed to other users: a Python installed under /root (pyenv, say) does
not start for it. Opening the folder would show that uid everything else in it, so instead the
installation is mirrored where the uid can reach it: the same files, as hard links (no copy, and
nothing of /root's beside them), in folders that are root's and closed to writes. A virtual
environment on top of it is mirrored too, its `pyvenv.cfg` pointing at the mirrored installation.
Nothing is ever run to learn the layout: it is read from the files (the interpreter may be the
repository's own).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from selfheal.sandbox.identity import readable_by_others

CACHE_NAME = "selfheal-interpreters"
CACHE_PARENTS = (Path("/var/tmp"), Path("/tmp"))


@dataclass(frozen=True)
class Layout:
    """Where an interpreter's files live: its virtual environment (if any) and its installation."""

    python: Path  # the interpreter as the tests name it (a venv's bin/python, say)
    venv: Path | None
    installation: Path

    @classmethod
    def of(cls, python: str) -> Layout:
        path = Path(os.path.abspath(python))
        venv = path.parent.parent
        config = _read_config(venv / "pyvenv.cfg")
        if config.get("home"):
            return cls(path, venv, Path(config["home"]).parent)
        return cls(path, None, Path(os.path.realpath(path)).parent.parent)

    @property
    def sources(self) -> tuple[Path, ...]:
        return (self.installation,) if self.venv is None else (self.venv, self.installation)


@dataclass(frozen=True)
class Mirror:
    python: str  # the interpreter to run instead
    replaces: tuple[Path, ...]  # the folders it stands for
    env: dict[str, str]  # what it needs in its environment


def reachable_interpreter(python: str) -> tuple[Mirror | None, str]:
    """(a mirror of `python`, "") when a user other than its owner cannot run it; (None, why)
    when no mirror could be made; (None, "") when `python` needs none."""
    layout = Layout.of(python)
    if all(readable_by_others(p) for p in layout.sources) and readable_by_others(layout.python):
        return None, ""
    cache = _cache_for(layout.installation)
    if cache is None:
        return None, f"no folder on the file system of {layout.installation} where selfheal could mirror it"
    try:
        installation = _mirror(layout.installation, cache, "python")
        if layout.venv is None:
            relative = Path(os.path.realpath(layout.python)).relative_to(layout.installation)
            mirrored = installation / relative
        else:
            home = (layout.installation / "bin", installation / "bin")
            mirrored = _mirror(layout.venv, cache, "venv", home=home) / layout.python.relative_to(layout.venv)
    except (OSError, ValueError) as exc:
        return None, f"mirroring {layout.installation} failed: {exc}"
    # An interpreter built with a shared libpython finds it through a run path of the original
    # installation, which the uid cannot reach; the loader would take another Python's library
    # from the system instead, if there is one.
    shared = any((installation / "lib").glob("libpython*.so*"))
    env = {"LD_LIBRARY_PATH": str(installation / "lib")} if shared else {}
    return Mirror(str(mirrored), layout.sources, env), ""


def _read_config(path: Path) -> dict[str, str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    pairs = (line.split("=", 1) for line in lines if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def _cache_for(source: Path, parents: tuple[Path, ...] = CACHE_PARENTS) -> Path | None:
    """A folder for mirrors on `source`'s file system (hard links cannot cross one): root's,
    written by no one else, reachable by everyone — refused if anyone else made it first."""
    device = os.stat(source).st_dev
    for parent in parents:
        try:
            if os.stat(parent).st_dev != device:
                continue
        except OSError:
            continue
        cache = parent / CACHE_NAME
        try:
            os.mkdir(cache, 0o755)
        except FileExistsError:
            pass
        except OSError:
            continue
        info = os.lstat(cache)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022:
            os.chmod(cache, 0o755)
            return cache
    return None


def _version_of(source: Path) -> str:
    """What changes when the installation does: its folders where installing writes."""
    folders = [source, source / "bin", source / "lib", *sorted(source.glob("lib/python*/site-packages"))]
    stamps = []
    for folder in folders:
        try:
            info = os.stat(folder)
        except OSError:
            continue
        stamps.append(f"{folder}:{info.st_ino}:{info.st_mtime_ns}")
    return "\0".join(stamps)


def _mirror(source: Path, cache: Path, kind: str, *, home: tuple[Path, Path] | None = None) -> Path:
    """`source` mirrored as hard links under `cache` (made once per version of it; what another
    user may read only, since the link shows the same file with the same permissions). `home`:
    (the installation's bin/, its mirror's) for a venv, whose interpreter links are redirected."""
    key = hashlib.sha256(f"{_version_of(source)}\0{home}".encode()).hexdigest()[:16]
    target = cache / f"{kind}-{source.name}-{key}"
    if (target / ".complete").is_file():
        return target
    # one partial folder per thread: two heals of one process (the corpora run several at once)
    # must not build the same mirror into the same folder
    partial = cache / f".{target.name}.{os.getpid()}.{threading.get_ident()}"
    try:
        _link_tree(source, partial, target, home)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    try:
        os.rename(partial, target)
    except OSError:  # another heal made it meanwhile
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _link_tree(source: Path, partial: Path, target: Path, home: tuple[Path, Path] | None) -> None:
    for folder, dirs, files in os.walk(source):
        relative = Path(folder).relative_to(source)
        os.makedirs(partial / relative, mode=0o755, exist_ok=True)
        for name in dirs + files:
            original = Path(folder) / name
            copy = partial / relative / name
            info = os.lstat(original)
            if stat.S_ISLNK(info.st_mode):
                link = os.readlink(original)
                # a link into the source points into the mirror instead
                if os.path.isabs(link) and (Path(link) == source or source in Path(link).parents):
                    link = str(target / Path(link).relative_to(source))
                elif home is not None and os.path.isabs(link) and Path(link).parent == home[0]:
                    link = str(home[1] / Path(link).name)
                os.symlink(link, copy)
                if name in dirs:
                    dirs.remove(name)  # a linked folder is not walked into
            elif (
                stat.S_ISREG(info.st_mode) and info.st_mode & stat.S_IROTH and not info.st_mode & stat.S_IWOTH
            ):
                # a file anyone may write is left out: through the link, the uid would change
                # the installation itself
                os.link(original, copy)
    if home is not None:  # a venv: its interpreter's installation is the mirrored one
        config = _read_config(source / "pyvenv.cfg")
        config["home"] = str(home[1])
        (partial / "pyvenv.cfg").unlink(missing_ok=True)
        (partial / "pyvenv.cfg").write_text("".join(f"{k} = {v}\n" for k, v in config.items()))
        os.chmod(partial / "pyvenv.cfg", 0o644)
    (partial / ".complete").write_text("")


# An absolute path in a .pth line of code (`import site; site.addsitedir('/x')`) or in an
# editable install's finder (`MAPPING = {'pkg': '/home/me/pkg/src/pkg'}`).
_ABSOLUTE_LITERAL = re.compile(r"""['"](/[^'"\n]+)['"]""")
MAX_REFERENCED = 64


def referenced_folders(python: str) -> tuple[Path, ...]:
    """Folders outside its own that `python` imports from: what the .pth files of its
    site-packages add (and theirs, one level on), and where editable installs point. Read from the
    files, never by running them. Behind bubblewrap they are shown read-only, so that an editable
    install of a neighbouring project, in a home folder the sandbox hides, still imports."""
    layout = Layout.of(python)
    root = layout.venv or layout.installation
    sites = sorted(root.glob("lib/python*/site-packages"))
    found: dict[Path, None] = {}
    for _ in range(2):
        added: list[Path] = []
        for site in sites:
            for candidate in _named_in(site):
                if candidate.is_dir() and candidate not in found and len(found) < MAX_REFERENCED:
                    found[candidate] = None
                    added.append(candidate)
        sites = added
    return tuple(found)


def _named_in(site: Path) -> list[Path]:
    named: list[Path] = []
    try:
        pth_files = sorted(site.glob("*.pth"))
        finders = sorted(site.glob("__editable__*finder.py"))
    except OSError:
        return named
    for pth in pth_files:
        try:
            lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()[:200]
        except OSError:
            continue
        for line in (line.strip() for line in lines):
            if not line or line.startswith("#"):
                continue
            if line.startswith(("import ", "import\t")):
                named += [Path(p) for p in _ABSOLUTE_LITERAL.findall(line)]
            else:
                named.append(Path(line) if os.path.isabs(line) else site / line)
    for finder in finders:
        try:
            text = finder.read_text(encoding="utf-8", errors="replace")[:100_000]
        except OSError:
            continue
        named += [Path(p) for p in _ABSOLUTE_LITERAL.findall(text)]
    return [Path(os.path.normpath(p)) for p in named]
