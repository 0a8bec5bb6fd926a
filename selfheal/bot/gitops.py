"""Git through GitPython: clone the commit to heal, commit the repair, push its branch.

The token travels as an `http.extraheader` given to each git process through GIT_CONFIG_*
environment variables: never in a URL, never written to `.git/config`, never in a log line
(git's own messages are passed through `redact` before they are shown).
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from git import Actor, GitCommandError, Repo

from selfheal.bot.exceptions import GitError


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


class Remote:
    def __init__(self, url: str, token: str) -> None:
        if "@" in url.split("//", 1)[-1].split("/", 1)[0]:
            raise GitError("the clone URL carries credentials; selfheal passes the token as a header")
        self.url = url
        self._token = token

    def env(self) -> dict[str, str]:
        basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
        return {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "true",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": f"http.{self.url}.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
        }

    def redact(self, text: str) -> str:
        basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
        return text.replace(self._token, "***").replace(basic, "***")

    def _fail(self, what: str, exc: GitCommandError) -> GitError:
        said = self.redact(str(exc.stderr or exc)).strip().splitlines()
        return GitError(f"git {what} failed: {said[-1] if said else exc.status}")

    def clone(self, dest: Path, *, sha: str, branch: str | None = None) -> Repo:
        """A checkout of `sha` (fetched by itself, so a fork-free PR head or an old commit works)."""
        try:
            repo = Repo.init(dest)
            repo.git.update_environment(**self.env())
            repo.git.remote("add", "origin", self.url)
            try:
                repo.git.fetch("--no-tags", "--depth=50", "origin", sha)
            except GitCommandError:
                # servers that refuse fetching a bare sha: fetch the branch it is on
                if not branch:
                    raise
                repo.git.fetch("--no-tags", "--depth=50", "origin", f"refs/heads/{branch}")
            repo.git.checkout("--detach", sha)
        except GitCommandError as exc:
            raise self._fail(f"fetch of {sha[:12]}", exc) from exc
        return repo

    def commit(
        self,
        repo: Repo,
        files: dict[str, str],
        message: str,
        author: Identity,
        *,
        deleted: Iterable[str] = (),
    ) -> str:
        root = Path(repo.working_tree_dir or ".")
        for path, text in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="")
        try:
            if files:
                repo.git.add("--", *files)
            for path in deleted:
                repo.git.rm("-q", "--", path)
            actor = Actor(author.name, author.email)
            commit = repo.index.commit(message, author=actor, committer=actor)
        except GitCommandError as exc:
            raise self._fail("commit", exc) from exc
        return commit.hexsha

    def remote_branch(self, repo: Repo, branch: str) -> tuple[str, str] | None:
        """(commit sha, tree sha) of the branch on the remote, or None when it does not exist."""
        try:
            listed = repo.git.ls_remote("origin", f"refs/heads/{branch}").strip()
            if not listed:
                return None
            sha = listed.split()[0]
            repo.git.fetch("--no-tags", "--depth=1", "origin", f"refs/heads/{branch}")
            return sha, repo.commit(sha).tree.hexsha
        except GitCommandError as exc:
            raise self._fail(f"look-up of branch {branch}", exc) from exc

    def push(self, repo: Repo, sha: str, branch: str, *, expected: str | None) -> None:
        """Force-push `sha` to `branch`, but only over the commit we saw there (or none)."""
        lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
        try:
            repo.git.push(lease, "origin", f"{sha}:refs/heads/{branch}")
        except GitCommandError as exc:
            raise self._fail(f"push to {branch}", exc) from exc
