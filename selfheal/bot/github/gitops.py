"""Git for the bot: the checkout the heal starts from, and the commit it publishes.

Every git process runs with an environment built here, not inherited: no global or system
configuration, no GIT_* variable of the host, HOME pointing nowhere, hooks and fsmonitor off, no
credential helper, only the remote's own protocol allowed. The token travels as an
`http.extraheader` given through GIT_CONFIG_* variables to the processes that talk to the remote
(fetch, ls-remote, push) and to no other: never in a URL, never written to a config file, never in
a log line (git's messages pass through `redact`).

The heal runs the repository's tests next to its checkout, so after the heal nothing in that
checkout is trusted: a test may have planted hooks, `core.fsmonitor`, filter or diff drivers,
`include.path` or a credential helper in its `.git`. The commit is therefore built in a `Stage`: a
bare git directory created after the heal, into which the base commit is fetched afresh and the
heal's files are written from memory with plumbing (`hash-object --no-filters`, `read-tree`,
`update-index`, `write-tree`, `commit-tree`). Plumbing in a bare directory reads no work tree, so
no `.gitattributes`, filter or textconv is ever consulted, and the tree pushed is the base tree
plus those files, nothing else.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType
from urllib.parse import urlsplit

from selfheal.bot.exceptions import GitError, LeaseLost

SHA = re.compile(r"^[0-9a-f]{40}$")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"

# Settings that would make git start a program or read a file of someone else's choosing, pinned
# on the command line (which wins over any config file git reads, including the repository's).
LOCKED = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "core.askPass=",
    "credential.helper=",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "push.gpgSign=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "fetch.recurseSubmodules=false",
    "submodule.recurse=false",
    "http.followRedirects=false",  # the auth header must not follow a redirect to another host
    "advice.detachedHead=false",
    "protocol.allow=never",
)

# Passed through to the processes that reach the network: where to find the proxy and the CAs.
NETWORK_VARIABLES = (
    "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY",
    "all_proxy", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH",
)  # fmt: skip


@dataclass(frozen=True)
class Identity:
    name: str = "selfheal[bot]"
    email: str = "selfheal[bot]@users.noreply.github.com"

    @classmethod
    def parse(cls, text: str | None) -> Identity:
        """`Name <email>` (the form git prints); an empty value gives the default."""
        if not text or not text.strip():
            return cls()
        name, _, rest = text.strip().partition("<")
        email = rest.rstrip(">").strip()
        if not name.strip() or "@" not in email:
            raise ValueError(f"commit author {text!r} is not of the form 'Name <email>'")
        return cls(name.strip(), email)


@dataclass(frozen=True)
class Built:
    sha: str
    tree: str


@dataclass(frozen=True)
class RemoteCommit:
    """A branch tip on the remote, read from its raw commit object (shallow grafts do not hide parents)."""

    sha: str
    tree: str
    parents: tuple[str, ...]


class Remote:
    def __init__(self, url: str, token: str, *, stall_s: int = 60) -> None:
        """`stall_s`: a fetch or push that receives nothing for this long is given up (git's
        low-speed limit), so a remote that never answers fails the run instead of hanging it."""
        parts = urlsplit(url)
        if "@" in parts.netloc:
            raise GitError("the clone URL carries credentials; selfheal passes the token as a header")
        if parts.scheme not in ("https", "http"):
            raise GitError(f"the clone URL {url!r} is not http(s); the token goes only in an HTTP header")
        self.url = url
        self.scheme = parts.scheme
        self._token = token
        self.stall_s = max(1, int(stall_s))

    def _header(self) -> str:
        basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
        return f"AUTHORIZATION: basic {basic}"

    def redact(self, text: str) -> str:
        basic = self._header().rsplit(" ", 1)[-1]
        return text.replace(self._token, "***").replace(basic, "***")

    # -- running git --------------------------------------------------------------------------------
    def env(self, *, auth: bool, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The whole environment of one git process; the token's header only when `auth`."""
        env = {
            "PATH": os.environ.get("PATH") or SYSTEM_PATH,
            "LC_ALL": "C",
            "HOME": os.devnull,  # no ~/.gitconfig, ~/.netrc, ~/.git-credentials
            "XDG_CONFIG_HOME": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
        }
        if auth:
            env.update({k: os.environ[k] for k in NETWORK_VARIABLES if k in os.environ})
            env.update(
                GIT_HTTP_LOW_SPEED_LIMIT="1",  # bytes per second, for GIT_HTTP_LOW_SPEED_TIME seconds
                GIT_HTTP_LOW_SPEED_TIME=str(self.stall_s),
                GIT_CONFIG_COUNT="1",
                GIT_CONFIG_KEY_0=f"http.{self.url}.extraheader",
                GIT_CONFIG_VALUE_0=self._header(),
            )
        env.update(extra or {})
        return env

    def git(
        self,
        git_dir: Path | None,
        *args: str,
        what: str,
        auth: bool = False,
        work_tree: Path | None = None,
        input: bytes | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> str:
        """Run one git command on `git_dir` (None: `init`, in the folder it creates); its stdout, or
        GitError naming `what`, redacted. The git directory is always named, never discovered."""
        pinned = [
            item for setting in (*LOCKED, f"protocol.{self.scheme}.allow=always") for item in ("-c", setting)
        ]
        location = [f"--git-dir={git_dir}"] if git_dir else []
        if work_tree:
            location.append(f"--work-tree={work_tree}")
        try:
            done = subprocess.run(
                ["git", "--no-pager", *pinned, *location, *args],
                cwd=cwd or work_tree or git_dir,
                input=input,
                capture_output=True,
                env=self.env(auth=auth, extra=env),
                check=False,
                timeout=600,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise GitError(f"git {what} failed: {self.redact(str(exc))}") from exc
        if done.returncode != 0:
            said = self.redact(done.stderr.decode("utf-8", "replace")).strip().splitlines()
            # a refused push names why on its own line ("! [rejected] ... (stale info)"), not the last
            refused = [line.strip() for line in said[:-1] if line.lstrip().startswith("! [")]
            text = "; ".join([said[-1], *refused[:1]]) if said else f"exit {done.returncode}"
            raise GitError(f"git {what} failed: {text}")
        return done.stdout.decode("utf-8", "surrogateescape")

    def fetch(self, git_dir: Path, sha: str, *, branch: str | None, depth: int) -> None:
        """Bring `sha` into `git_dir` (by itself, so a PR head or an old commit works)."""
        if not SHA.match(sha):
            raise GitError(f"{sha!r} is not a full commit sha")
        what = f"fetch of {sha[:12]}"
        fetch = ("fetch", "--no-tags", "--no-write-fetch-head")
        try:
            self.git(git_dir, *fetch, f"--depth={depth}", self.url, sha, what=what, auth=True)
        except GitError:
            # servers that refuse fetching a bare sha: fetch the branch it is on
            if not branch:
                raise
            self.git(git_dir, *fetch, "--depth=50", self.url, f"refs/heads/{branch}", what=what, auth=True)
        self.git(git_dir, "cat-file", "-e", f"{sha}^{{commit}}", what=what)

    def fetch_branch_tip(self, git_dir: Path, ref: str, into: str, *, what: str) -> str | None:
        """The tip of the remote's `ref` fetched (depth 1) into the local ref `into`: its sha, or
        None when the remote has no such ref."""
        listed = self.git(git_dir, "ls-remote", self.url, ref, what=what, auth=True)
        if not any(line.split("\t")[-1] == ref for line in listed.splitlines()):
            return None
        self.git(git_dir, "fetch", "--no-tags", "--no-write-fetch-head", "--depth=1", self.url,
                 f"+{ref}:{into}", what=what, auth=True)  # fmt: skip
        return self.git(git_dir, "rev-parse", "--verify", f"{into}^{{commit}}", what=what).strip()

    # -- the heal's checkout ------------------------------------------------------------------------
    def clone(self, dest: Path, *, sha: str, branch: str | None = None) -> Path:
        """A work tree at `sha` for the heal to copy from; returns `dest`. Never published from."""
        dest.mkdir(parents=True)
        git_dir = dest / ".git"
        self.git(None, "init", "-q", "--template=", str(dest), what="init", cwd=dest)
        self.fetch(git_dir, sha, branch=branch, depth=50)
        self.git(git_dir, "checkout", "-q", "--detach", sha, what=f"checkout of {sha[:12]}", work_tree=dest)
        return dest

    def stage(self, parent: Path | None, *, base: str, branch: str | None = None) -> Stage:
        return Stage.open(self, parent, base=base, branch=branch)


class Stage:
    """A bare git directory made now, holding the base commit fetched afresh and nothing else."""

    def __init__(self, remote: Remote, folder: Path, base: str) -> None:
        self.remote = remote
        self.folder = folder
        self.git_dir = folder / "git"
        self.base = base

    @classmethod
    def open(cls, remote: Remote, parent: Path | None, *, base: str, branch: str | None = None) -> Stage:
        # mkdtemp makes a new folder (0700) or fails: nothing planted beforehand can be in it
        folder = Path(tempfile.mkdtemp(prefix="selfheal-publish-", dir=parent))
        stage = cls(remote, folder, base)
        try:
            # an empty template: no sample hooks or files copied from the system's templates
            remote.git(
                None, "init", "-q", "--bare", "--template=", str(stage.git_dir), what="init", cwd=folder
            )
            remote.fetch(stage.git_dir, base, branch=branch, depth=1)
        except BaseException:
            stage.close()
            raise
        return stage

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Stage:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _git(self, *args: str, what: str, **kwargs) -> str:
        return self.remote.git(self.git_dir, *args, what=what, **kwargs)

    def commit(self, files: Mapping[str, str], message: str, author: Identity) -> Built:
        """A commit on the base whose tree is the base tree with `files` (full texts) written in."""
        for path in files:
            check_path(path)
        index = {"GIT_INDEX_FILE": str(self.folder / "index")}
        self._git("read-tree", self.base, what="commit", env=index)
        modes = self._modes(list(files))
        entries = []
        for path, text in sorted(files.items()):
            blob = self._git("hash-object", "-w", "--no-filters", "--stdin", what="commit",
                             input=text.encode("utf-8", "surrogateescape")).strip()  # fmt: skip
            entries.append(f"{modes.get(path, '100644')} {blob}\t{path}\0")
        if entries:
            self._git(
                "update-index",
                "-z",
                "--index-info",
                what="commit",
                input="".join(entries).encode(),
                env=index,
            )
        tree = self._git("write-tree", what="commit", env=index).strip()
        self._check_tree(tree, files)
        people = {
            "GIT_AUTHOR_NAME": author.name,
            "GIT_AUTHOR_EMAIL": author.email,
            "GIT_COMMITTER_NAME": author.name,
            "GIT_COMMITTER_EMAIL": author.email,
        }
        sha = self._git("commit-tree", "--no-gpg-sign", tree, "-p", self.base, "-F", "-", what="commit",
                        input=message.encode("utf-8"), env=people).strip()  # fmt: skip
        return Built(sha, tree)

    def _check_tree(self, tree: str, files: Mapping[str, str]) -> None:
        """The tree differs from the base's only by the files written, added or changed: nothing
        of the base was dropped (update-index replaces a file by a folder of the same name)."""
        listed = self._git("diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv",
                           "--name-status", self.base, tree, what="commit")  # fmt: skip
        fields = listed.split("\0")
        changes = dict(zip(fields[1::2], fields[0::2], strict=False))
        wrong = sorted(p for p, status in changes.items() if status not in ("A", "M") or p not in files)
        if wrong:
            raise GitError(f"commit refused: writing the files would also change {', '.join(wrong[:5])}")

    def _modes(self, paths: list[str]) -> dict[str, str]:
        """Modes the base gives these paths: an executable file stays executable; a symlink or a
        submodule is not silently turned into a file."""
        if not paths:
            return {}
        listed = self._git("ls-tree", "-z", "--full-tree", self.base, "--", *paths, what="commit")
        modes = {}
        for entry in filter(None, listed.split("\0")):
            meta, _, path = entry.partition("\t")
            mode = meta.split()[0]
            if path in paths and mode not in ("100644", "100755"):
                raise GitError(f"commit refused: {path} is not a regular file in the base (mode {mode})")
            modes[path] = mode
        return modes

    def remote_branch(self, branch: str) -> RemoteCommit | None:
        """The branch's tip on the remote, fetched here, or None when it does not exist."""
        what = f"look-up of branch {branch}"
        ref = f"refs/heads/{branch}"
        sha = self.remote.fetch_branch_tip(self.git_dir, ref, "refs/selfheal/remote", what=what)
        if sha is None:
            return None
        raw = self._git("cat-file", "commit", sha, what=what)
        header = raw.split("\n\n", 1)[0].splitlines()
        tree = next(line.split()[1] for line in header if line.startswith("tree "))
        parents = tuple(line.split()[1] for line in header if line.startswith("parent "))
        return RemoteCommit(sha, tree, parents)

    def push(self, sha: str, branch: str, *, expected: str | None) -> None:
        """Force-push `sha` to `branch`, but only over the commit we saw there (or none)."""
        lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
        try:
            self._git("push", "--no-verify", "--quiet", lease, self.remote.url,
                      f"{sha}:refs/heads/{branch}", what=f"push to {branch}", auth=True)  # fmt: skip
        except GitError as exc:
            if any(word in str(exc) for word in LEASE_REFUSALS):
                raise LeaseLost(str(exc), maybe_arrived=SERVER_SIDE_REFUSAL in str(exc)) from exc
            raise


# git's words for a push that lost its race: the lease no longer matched ("stale info"), or another push
# took the ref between the server's advertisement and its update
# ("failed to update ref"; it is also what git says when the answer to a push that arrived was lost)
SERVER_SIDE_REFUSAL = "(failed to update ref)"
LEASE_REFUSALS = ("(stale info)", "(fetch first)", SERVER_SIDE_REFUSAL)


def check_path(path: str) -> None:
    """A repo-relative path that stays inside the tree and out of any `.git`."""
    parts = PurePosixPath(path).parts
    if (
        not parts
        or path.startswith("/")
        or "\0" in path
        or any(p in ("", ".", "..") or p.lower().rstrip(". ") == ".git" for p in parts)
        or path != "/".join(parts)
    ):
        raise GitError(f"commit refused: {path!r} is not a plain path inside the repository")
