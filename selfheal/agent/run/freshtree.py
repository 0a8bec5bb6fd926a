"""The workspace as a deciding run must find it, and what the run changed in it.

A run that decides anything (the verdict's, the proof of new tests) starts from a tree made afresh:
the files as they stood before the baseline ran (the base commit, as copied), the patch's files
and the new tests over them, and nothing else. Whatever an earlier run left behind (a screening
run or a probe that imported patched code, the flake check, an earlier proof) is removed or put
back first, and the compiled caches (`__pycache__`) go too, since a planted `.pyc` is code. After
the run the tree is compared with what it started from: a file added, changed or removed outside
the scratch folders (selfheal's own folder, `__pycache__`, `.pytest_cache`, `.hypothesis`) is the
run's doing, unless the suite's own baseline run wrote the same file (a log it keeps). Then the
tree goes back to the base for the runs that follow.

    tree = FreshTree.for_workspace(session, python, workspace, start)   start: before the baseline
    fresh = tree.prepare(files)             the tree made afresh, `files` over the base
    after = tree.settle()                   after the run: its fingerprint, and the base put back
    tree_changes(fresh.expected, after, exempt)  -> "path (changed)", "(deleted)", "(created)"
    after, fresh = tree.advance(files)      between two runs: settle and prepare at once

Everything goes through the `Session`, so it is the same for every backend. Making the tree afresh
is one Python process in the sandbox, and so is settling it (the fingerprint and the clean-up at
once): removal happens in there, where the files the tests made are the sandbox user's, and the
files are put back by selfheal's own writes. A verdict's run costs no more processes than the two
fingerprints it took before.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from selfheal.agent.run.workspace import Workspace
from selfheal.sandbox import STATE_DIR, Session
from selfheal.sandbox.exceptions import WorkspaceTrap

SCRATCH = ("__pycache__", ".pytest_cache", ".hypothesis")  # besides selfheal's own folder
SPEC = f"{STATE_DIR}/fresh-tree.json"
TREE_TIMEOUT = 120.0

# Run inside the sandbox, isolated (-I -S: no PYTHONPATH, no site hooks of the workspace). Every
# entry of the workspace outside the scratch folders gets a digest (links and special files by
# kind, never followed). `fingerprint` prints them. `reset SPEC` makes the tree what SPEC expects:
# every `__pycache__` removed, every entry SPEC does not hold removed (and the folders left empty),
# its links put back; it prints the expected files that are missing or differ (selfheal writes
# those; each -> what stands there now), what it removed and what it could not. `settle SPEC` does
# the same without touching the caches, and prints the digests taken before it did; `advance SPEC`
# prints them too, and removes the caches.
TREE_SCRIPT = r"""
import hashlib, json, os, shutil, stat, sys
root, own, mode = sys.argv[1], sys.argv[2], sys.argv[3]
SCRATCH = ("__pycache__", ".pytest_cache", ".hypothesis")


def walk():
    entries, folders, caches = [], [], []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        caches += [os.path.join(folder, d) for d in dirs if d == "__pycache__"]
        dirs[:] = sorted(d for d in dirs if d not in SCRATCH and not (rel == "." and d == own))
        if rel != ".":
            folders.append((folder, rel))
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            entries.append((os.path.join(folder, name), os.path.normpath(os.path.join(rel, name))))
    return entries, folders, caches


def digest(path):
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return "link:" + os.readlink(path)
    if not stat.S_ISREG(info.st_mode):
        return "special"
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return "unreadable"
    found = hashlib.sha256()
    with os.fdopen(handle, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            found.update(block)
    return found.hexdigest()


def remove(path):
    for attempt in (0, 1):
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.unlink(path)
            return True
        except OSError:
            if attempt:
                return False
            try:  # a folder the run made read-only
                os.chmod(os.path.dirname(path), 0o755)
                if os.path.isdir(path) and not os.path.islink(path):
                    for folder, dirs, _ in os.walk(path):
                        for name in dirs:
                            os.chmod(os.path.join(folder, name), 0o755)
            except OSError:
                return False
    return False


entries, folders, caches = walk()
found = {}
for path, key in entries:
    value = digest(path)
    if value is not None:
        found[key] = value
if mode == "fingerprint":
    print(json.dumps(found))
    sys.exit(0)

with open(sys.argv[4], encoding="utf-8") as handle:
    expected = json.load(handle)
if mode in ("reset", "advance"):
    for cache in caches:
        shutil.rmtree(cache, ignore_errors=True)
removed, stuck, stale, relinked = [], [], {}, []
for path, key in entries:
    if key in expected:
        if found.get(key) != expected[key]:
            stale[key] = found.get(key)
    elif remove(path):
        removed.append(key)
    else:
        stuck.append(key)
for key in expected:
    if key not in found and key not in stale:
        stale[key] = None
for key in list(stale):
    path = os.path.join(root, key)
    if os.path.isdir(path) and not os.path.islink(path) and not remove(path):
        stuck.append(key)  # a folder where a file belongs
        continue
    want = expected[key]
    if want.startswith("link:"):
        try:
            if os.path.lexists(path):
                os.unlink(path)
            os.makedirs(os.path.dirname(path) or root, exist_ok=True)
            os.symlink(want[len("link:"):], path)
            del stale[key]
            relinked.append(key)
        except OSError:
            pass
needed = set()
for key in expected:
    parent = os.path.dirname(key)
    while parent:
        needed.add(parent)
        parent = os.path.dirname(parent)
for folder, rel in reversed(folders):
    if rel not in needed and not os.path.islink(folder):
        try:
            os.rmdir(folder)
        except OSError:
            pass
said = {"stale": stale, "removed": removed, "stuck": stuck, "relinked": relinked}
if mode in ("settle", "advance"):
    said["after"] = found
print(json.dumps(said))
"""


def digest_of(data: bytes) -> str:
    """What the tree script says of a regular file holding `data`."""
    return hashlib.sha256(data).hexdigest()


def fingerprint(session: Session, python: str) -> dict[str, str] | None:
    """Every entry of the workspace outside the scratch folders -> its digest (None when it could
    not be taken)."""
    done = session.run(
        [python, "-I", "-S", "-c", TREE_SCRIPT, str(session.root), STATE_DIR, "fingerprint"],
        timeout=TREE_TIMEOUT,
    )
    try:
        found = json.loads(done.stdout) if done.ok else None
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def tree_changes(
    expected: Mapping[str, str], after: Mapping[str, str] | None, exempt: Iterable[str] = ()
) -> tuple[str, ...]:
    """What a run did to a tree that started as `expected`: files changed, deleted and created,
    apart from `exempt` (the files the suite's own baseline run writes)."""
    if after is None:
        return ("(the workspace could not be read after the run)",)
    skip = frozenset(exempt)
    changed = [f"{p} (changed)" for p in sorted(set(expected) & set(after)) if expected[p] != after[p]]
    deleted = [f"{p} (deleted)" for p in sorted(set(expected) - set(after))]
    created = [f"{p} (created)" for p in sorted(set(after) - set(expected))]
    return tuple(c for c in changed + deleted + created if c.rsplit(" (", 1)[0] not in skip)


@dataclass(frozen=True)
class Fresh:
    """A tree made afresh for a run: every entry it holds -> its digest, and what an earlier run
    had left that was taken away or put back before this one (for the trace)."""

    expected: dict[str, str]
    cleared: tuple[str, ...] = ()


class FreshTree:
    def __init__(
        self,
        session: Session,
        python: str,
        start: dict[str, str] | None,
        base: Callable[[list[str]], dict[str, bytes]],
    ) -> None:
        """`start`: the tree's fingerprint before the baseline ran (None: it could not be taken,
        and each run is compared with the tree as it finds it); `base`: the bytes of start's
        files, for those it can give."""
        self.session = session
        self.python = python
        self.start = dict(start) if start is not None else None
        self.base = base
        self._placed: tuple[str, ...] = ()  # without a start: the files the last run was given

    @classmethod
    def for_workspace(
        cls, session: Session, python: str, workspace: Workspace, start: dict[str, str] | None
    ) -> FreshTree:
        """The base's bytes from the base commit; a file of the copy the commit does not hold (one
        the copy's .gitignore leaves out) is read now, before any test has run."""
        committed = workspace.committed()
        kept: dict[str, bytes] = {}
        for path, value in (start or {}).items():
            if path not in committed and not value.startswith("link:"):
                data = session.read_file(path)
                if data is not None:
                    kept[path] = data

        def base(paths: list[str]) -> dict[str, bytes]:
            found = workspace.base_bytes([p for p in paths if p in committed])
            return {**found, **{p: kept[p] for p in paths if p in kept}}

        return cls(session, python, start, base)

    def fingerprint(self) -> dict[str, str] | None:
        return fingerprint(self.session, self.python)

    def prepare(self, files: Mapping[str, str | bytes]) -> Fresh:
        """The tree made afresh: the base with `files` (repo path -> content) over it and nothing
        else. Raises WorkspaceTrap when an entry cannot be removed or put back."""
        data = _encoded(files)
        if self.start is None:
            for path, content in data.items():
                self.session.write_file(path, content, force=True)
            self._placed = tuple(data)
            found = self.fingerprint()
            if found is None:
                raise WorkspaceTrap("the workspace could not be read before the run")
            return Fresh(found)
        expected = {**self.start, **{p: digest_of(c) for p, c in data.items()}}
        return self._made_afresh(self._script("reset", expected), expected, data)

    def _made_afresh(self, said: dict | None, expected: dict[str, str], data: Mapping[str, bytes]) -> Fresh:
        """The tree script's clean-up towards `expected` finished by selfheal's own writes."""
        assert self.start is not None
        if said is None or said["stuck"]:
            what = ", ".join(said["stuck"][:5]) + " could not be removed" if said else "the clean-up failed"
            raise WorkspaceTrap(f"the workspace could not be made afresh for the run: {what}")
        stale = said["stale"]
        self._put_back(stale, expected, data)
        put_back = sorted({*(p for p in stale if p in self.start and p not in data), *said["relinked"]})
        cleared = [f"{p} (removed)" for p in said["removed"]] + [f"{p} (put back)" for p in put_back]
        return Fresh(expected, tuple(cleared))

    def advance(self, files: Mapping[str, str | bytes]) -> tuple[dict[str, str] | None, Fresh]:
        """Between two deciding runs: the fingerprint of the one that ended, and the tree made
        afresh with `files` for the next, in one process."""
        if self.start is None:
            return self.settle(), self.prepare(files)
        data = _encoded(files)
        expected = {**self.start, **{p: digest_of(c) for p, c in data.items()}}
        said = self._script("advance", expected)
        fresh = self._made_afresh(said, expected, data)
        after = said["after"] if said is not None else None
        return (after if isinstance(after, dict) else None), fresh

    def settle(self) -> dict[str, str] | None:
        """After a run: its fingerprint (None when it could not be taken), taken in the same
        process that puts the tree back to the base for the runs that follow (caches kept)."""
        if self.start is None:
            after = self.fingerprint()
            self._take_back()
            return after
        said = self._script("settle", self.start)
        if said is None:
            return None
        with contextlib.suppress(WorkspaceTrap):  # the next deciding run makes its tree afresh anyway
            self._put_back(said["stale"], dict(self.start), {})
        after = said["after"]
        return after if isinstance(after, dict) else None

    def restore(self) -> None:
        """Back to the base, when a run ended without settling (it raised): best effort."""
        if self.start is None:
            self._take_back()
            return
        said = self._script("settle", self.start)
        if said is not None:
            with contextlib.suppress(WorkspaceTrap):
                self._put_back(said["stale"], dict(self.start), {})

    def _take_back(self) -> None:
        """Without a start: the files the last run was given back to the base's, or removed."""
        placed, self._placed = self._placed, ()
        base = self.base(list(placed)) if placed else {}
        for path in placed:
            if path in base:
                self.session.write_file(path, base[path], force=True)
        gone = [str(self.session.root / p) for p in placed if p not in base]
        if gone:
            remove = (
                "import os, sys\nfor p in sys.argv[1:]:\n    if os.path.lexists(p):\n        os.remove(p)"
            )
            self.session.run([self.python, "-I", "-S", "-c", remove, *gone], timeout=TREE_TIMEOUT)

    def _script(self, mode: str, expected: Mapping[str, str]) -> dict | None:
        """The tree script in the sandbox with `expected` as its spec; what it printed."""
        self.session.write_file(SPEC, json.dumps(expected), force=True)
        done = self.session.run(
            [self.python, "-I", "-S", "-c", TREE_SCRIPT, str(self.session.root), STATE_DIR, mode,
             str(self.session.root / SPEC)],
            timeout=TREE_TIMEOUT,
        )  # fmt: skip
        try:
            said = json.loads(done.stdout) if done.ok else None
        except ValueError:
            return None
        return said if isinstance(said, dict) else None

    def _put_back(
        self, stale: Mapping[str, str | None], expected: dict[str, str], data: Mapping[str, bytes]
    ) -> None:
        """Selfheal's own writes of the `stale` files: `data`'s content, else the base's. One the
        base cannot give stays as it is, and `expected` takes it as it is."""
        wanted = [p for p in stale if p not in data and not _kind(expected.get(p, ""))]
        base = self.base(wanted) if wanted else {}
        for path, now in stale.items():
            content = data.get(path, base.get(path))
            if content is None:
                if now is None:
                    expected.pop(path, None)
                else:
                    expected[path] = now
                continue
            self.session.write_file(path, content, force=True)
            written = digest_of(content)
            if written != expected.get(path):
                # the base commit's bytes differ from the copy's (line endings normalised by the
                # repository's attributes): the base commit's stand from now on
                expected[path] = written
                if path not in data and self.start is not None:
                    self.start[path] = written


def _encoded(files: Mapping[str, str | bytes]) -> dict[str, bytes]:
    return {p: t.encode("utf-8") if isinstance(t, str) else t for p, t in files.items()}


def _kind(value: str) -> bool:
    """A digest of something selfheal does not write as a file: a link, a special file."""
    return value.startswith("link:") or value in ("special", "unreadable")
