"""The heal's own copy of the repository, and the git plumbing around it.

The user's tree is never written to (unless they ask for `--apply`). The files they would commit
(tracked plus untracked-but-not-ignored, or everything sensible when the directory is not a git
repo) are copied into a temporary directory and committed there as the *base*: every patch is a
diff against that commit and is checked with `git apply` against it (verdict rule 5). When the
user's working tree is clean, the base tree is their HEAD's tree, so the patch applies on HEAD.

Git runs with the user's global and system configuration switched off, so hooks, signing and
diff drivers of the user's setup cannot change what selfheal writes. The snapshot's git directory
lives *beside* the copy, not in it: sandboxed code can write to the copy, and a `.git/config` it
planted (an fsmonitor or textconv command) would otherwise be run by git on the host.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from selfheal.agent.exceptions import TargetError, WorkspaceError
from selfheal.sandbox import STATE_DIR

# Never copied: environments, caches and selfheal's own output.
SKIPPED_PARTS = {
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    "node_modules",
    ".selfheal",
    STATE_DIR,
    ".eggs",
}
SKIPPED_SUFFIXES = (".pyc", ".pyo", ".egg-info")

GIT_ENV = {
    # `git status` would otherwise refresh and rewrite the user's index: read-only means read-only.
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_AUTHOR_NAME": "selfheal",
    "GIT_AUTHOR_EMAIL": "selfheal@localhost",
    "GIT_COMMITTER_NAME": "selfheal",
    "GIT_COMMITTER_EMAIL": "selfheal@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}


def git(
    cwd: Path,
    *args: str,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
    git_dir: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    # Only what git needs: no token or key of selfheal's environment reaches it.
    full_env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        **GIT_ENV,
        **(env or {}),
    }
    location = [f"--git-dir={git_dir}", f"--work-tree={cwd}"] if git_dir else []
    try:
        done = subprocess.run(
            [
                "git",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.autocrlf=false",
                "-c",
                "core.fsmonitor=false",
                *location,
                *args,
            ],
            cwd=cwd,
            input=input,
            capture_output=True,
            env=full_env,
            check=False,
        )
    except FileNotFoundError as exc:
        raise WorkspaceError("git is not installed; selfheal needs it to snapshot and diff") from exc
    if check and done.returncode != 0:
        raise WorkspaceError(
            f"git {' '.join(args[:2])} failed: {done.stderr.decode('utf-8', 'replace').strip()}"
        )
    return done


@dataclass(frozen=True)
class Origin:
    """Facts about the user's directory, read without changing anything in it."""

    path: Path
    is_git: bool
    head_sha: str | None
    dirty: bool
    subdir: str  # path of `path` inside its git work tree ("" at the top, or not a repo)

    @classmethod
    def inspect(cls, path: Path) -> Origin:
        if not path.exists():
            raise TargetError(f"{path}: no such directory")
        if not path.is_dir():
            raise TargetError(f"{path}: not a directory")
        inside = git(path, "rev-parse", "--is-inside-work-tree", check=False)
        if inside.returncode != 0 or inside.stdout.strip() != b"true":
            return cls(path, False, None, False, "")
        head = git(path, "rev-parse", "--verify", "-q", "HEAD", check=False)
        head_sha = head.stdout.decode().strip() if head.returncode == 0 else None
        status = git(path, "status", "--porcelain", "--untracked-files=normal", "--", ".")
        prefix = git(path, "rev-parse", "--show-prefix").stdout.decode().strip().rstrip("/")
        return cls(path, True, head_sha, bool(status.stdout.strip()), prefix)

    def files(self) -> list[str]:
        """Paths (relative to `path`) that make up the project as the user sees it."""
        if self.is_git:
            listed = git(self.path, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
            names = [n for n in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
        else:
            names = []
            for dirpath, dirnames, filenames in os.walk(self.path):
                dirnames[:] = sorted(d for d in dirnames if not _skipped(d))
                rel_dir = os.path.relpath(dirpath, self.path)
                names.extend(os.path.normpath(os.path.join(rel_dir, f)) for f in sorted(filenames))
        return sorted(n for n in names if not any(_skipped(part) for part in Path(n).parts))


def _skipped(name: str) -> bool:
    return name in SKIPPED_PARTS or name.endswith(SKIPPED_SUFFIXES)


@dataclass
class Workspace:
    root: Path
    origin: Origin
    base_commit: str
    files: list[str]
    git_dir: Path
    _texts: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def toplevel(self) -> Path:
        """The user's git top level (the folder `git apply` of the published patch runs in)."""
        if not self.origin.subdir:
            return self.origin.path
        return self.origin.path.parents[len(Path(self.origin.subdir).parts) - 1]

    @property
    def base_sha(self) -> str:
        """What the report calls the base: the user's HEAD if there is one, else our snapshot."""
        return self.origin.head_sha or self.base_commit

    @classmethod
    def create(cls, origin: Origin, parent: Path | None = None) -> Workspace:
        container = Path(tempfile.mkdtemp(prefix="selfheal-ws-", dir=parent)).resolve()
        # As root, the sandbox runs the tests as a uid of its own, which must reach repo/ (to
        # which it is given) but must not list this folder or enter git/ (root's, 0700).
        container.chmod(0o711)
        root, git_dir = container / "repo", container / "git"
        try:
            root.mkdir()
            git_dir.mkdir(mode=0o700)
            files = origin.files()
            for rel in files:
                source = origin.path / rel
                target = root / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                if source.is_symlink():
                    os.symlink(os.readlink(source), target)
                elif source.is_file():
                    shutil.copy2(source, target)
            git(root, "init", "-q", "-b", "selfheal-base", git_dir=git_dir)
            (git_dir / "info").mkdir(exist_ok=True)
            (git_dir / "info" / "exclude").write_text(
                f"{STATE_DIR}/\n__pycache__/\n.pytest_cache/\n.selfheal/\n"
            )
            git(root, "add", "-A", git_dir=git_dir)
            git(root, "commit", "-q", "--allow-empty", "-m", "selfheal base snapshot", git_dir=git_dir)
            base = git(root, "rev-parse", "HEAD", git_dir=git_dir).stdout.decode().strip()
        except BaseException:
            shutil.rmtree(container, ignore_errors=True)
            raise
        copied = [rel for rel in files if (root / rel).is_file()]
        return cls(root=root, origin=origin, base_commit=base, files=copied, git_dir=git_dir)

    def _git(self, *args: str, **kwargs) -> subprocess.CompletedProcess[bytes]:
        return git(self.root, *args, git_dir=self.git_dir, **kwargs)

    def base_text(self, relpath: str) -> str:
        """A file as it is in the base commit (cached; the working copy may be patched)."""
        return self.base_texts([relpath])[relpath]

    def base_texts(self, relpaths: list[str]) -> dict[str, str]:
        """Several files of the base commit, read by one `git cat-file --batch`."""
        missing = [p for p in dict.fromkeys(relpaths) if p not in self._texts]
        if missing:
            found = self.base_bytes(missing)
            absent = next((p for p in missing if p not in found), None)
            if absent is not None:
                raise WorkspaceError(f"{absent} is not in the base snapshot")
            self._texts.update({p: found[p].decode("utf-8") for p in missing})
        return {p: self._texts[p] for p in relpaths}

    def base_bytes(self, relpaths: list[str]) -> dict[str, bytes]:
        """Files of the base commit as bytes (a symbolic link: where it points), by one `git
        cat-file --batch`; a path the commit does not hold is left out."""
        wanted = list(dict.fromkeys(relpaths))
        if any("\n" in p for p in wanted):  # the batch protocol is line-based
            raise WorkspaceError("a file name contains a newline; selfheal cannot read it")
        if not wanted:
            return {}
        request = "".join(f"{self.base_commit}:{p}\n" for p in wanted).encode("utf-8")
        output = self._git("cat-file", "--batch", input=request).stdout
        found: dict[str, bytes] = {}
        for path in wanted:
            header, _, output = output.partition(b"\n")
            if header.endswith(b" missing"):
                continue
            size = int(header.split()[2])
            found[path] = output[:size]
            output = output[size + 1 :]  # the blob is followed by a newline
        return found

    def committed(self) -> frozenset[str]:
        """Every path the base commit holds (a file the copy's own .gitignore left out is not)."""
        listed = self._git("ls-tree", "-r", "-z", "--name-only", self.base_commit).stdout
        return frozenset(n for n in listed.decode("utf-8", "surrogateescape").split("\0") if n)

    # -- patches ----------------------------------------------------------------------------
    def _with_scratch_index(self) -> tuple[dict[str, str], Path]:
        handle, name = tempfile.mkstemp(prefix="selfheal-index-")
        os.close(handle)
        os.unlink(name)
        env = {"GIT_INDEX_FILE": name}
        self._git("read-tree", self.base_commit, env=env)
        return env, Path(name)

    def diff(self, changes: dict[str, str], *, in_repo: bool = False) -> str:
        """Unified diff (git format) from the base to `changes` {path: text}.

        With `in_repo`, paths are relative to the user's git top level (so `git apply` works
        there when the healed project is a subfolder of a larger repository).
        """
        if not changes:
            return ""
        env, index = self._with_scratch_index()
        try:
            for relpath, text in sorted(changes.items()):
                blob = self._git("hash-object", "-w", "--stdin", input=text.encode("utf-8"))
                mode = self._mode(relpath)
                self._git(
                    "update-index",
                    "--add",
                    "--cacheinfo",
                    f"{mode},{blob.stdout.decode().strip()},{relpath}",
                    env=env,
                )
            sub = f"{self.origin.subdir}/" if in_repo and self.origin.subdir else ""
            done = self._git(
                "diff",
                "--cached",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                f"--src-prefix=a/{sub}",
                f"--dst-prefix=b/{sub}",
                self.base_commit,
                env=env,
            )
            return done.stdout.decode("utf-8")
        finally:
            index.unlink(missing_ok=True)

    def _mode(self, relpath: str) -> str:
        listed = self._git("ls-tree", self.base_commit, "--", relpath).stdout.decode().split()
        return listed[0] if listed else "100644"

    def check_applies(self, patch: str) -> tuple[bool, str]:
        """Verdict rule 5: does `git apply` accept the patch on the base commit?"""
        if not patch:
            return True, "empty patch"
        env, index = self._with_scratch_index()
        try:
            done = self._git(
                "apply", "--cached", "--check", "-", input=patch.encode("utf-8"), env=env, check=False
            )
        finally:
            index.unlink(missing_ok=True)
        message = done.stderr.decode("utf-8", "replace").strip()
        return done.returncode == 0, message or "applies cleanly"

    def cleanup(self) -> None:
        shutil.rmtree(self.root.parent, ignore_errors=True)


def apply_to_origin(
    origin: Path, changes: dict[str, str], base_texts: dict[str, str], new_files: dict[str, str]
) -> list[str]:
    """Write the patched files into the user's tree (`--apply`); refuse if they moved on."""
    conflicts = []
    for relpath in changes:
        current = origin / relpath
        if not current.is_file() or current.read_bytes() != base_texts[relpath].encode("utf-8"):
            conflicts.append(relpath)
    conflicts += [rel for rel in new_files if (origin / rel).exists()]
    if conflicts:
        raise WorkspaceError(
            "these files changed or appeared since the heal started: " + ", ".join(sorted(conflicts))
        )
    written = []
    for relpath, text in sorted({**changes, **new_files}.items()):
        target = origin / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
        written.append(relpath)
    return written
