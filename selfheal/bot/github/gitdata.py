"""The commit made on GitHub itself, through the Git Data API (blobs, tree, commit, ref): no local
git touches the token at all, and GitHub may mark commits an App makes this way as verified.

The same three steps as a `Stage` (gitops), so `publish` does not know which one it was given.
Unlike a push, GitHub's ref update has no compare-and-swap: the lease is a read of the branch just
before the update, which leaves a moment in which a concurrent push could be overwritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from types import TracebackType

from selfheal.bot.exceptions import GitError, GitHubError, LeaseLost
from selfheal.bot.github.client import GitHubClient
from selfheal.bot.github.gitops import Built, Identity, RemoteCommit, check_path

FILE_MODES = ("100644", "100755")


class ApiStage:
    def __init__(self, client: GitHubClient, base: str) -> None:
        self.client = client
        self.base = base

    def __enter__(self) -> ApiStage:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def commit(self, files: Mapping[str, str], message: str, author: Identity) -> Built:
        """A commit on the base whose tree is the base tree with `files` (full texts) written in."""
        for path in files:
            check_path(path)
        base_tree, _parents = self.client.git_commit(self.base)
        modes = self._modes(base_tree, list(files))
        entries = [
            (
                path,
                modes.get(path, "100644"),
                self.client.create_blob(text.encode("utf-8", "surrogateescape")),
            )
            for path, text in sorted(files.items())
        ]
        tree = self.client.create_tree(base_tree, entries)
        sha = self.client.create_commit(message, tree, [self.base], author.name, author.email)
        return Built(sha, tree)

    def _modes(self, base_tree: str, paths: list[str]) -> dict[str, str]:
        """The base's modes of these paths, read folder by folder; a path that would replace a
        folder, a symlink or a submodule, or go through a file, is refused (the API would allow it)."""
        trees: dict[str, dict[str, tuple[str, str, str]]] = {}
        modes = {}
        for path in paths:
            *folders, name = PurePosixPath(path).parts
            tree: str | None = base_tree
            for folder in folders:
                entries = trees.setdefault(tree, self.client.tree_entries(tree)) if tree else {}
                mode, kind, sha = entries.get(folder, ("", "", ""))
                if kind and kind != "tree":
                    raise GitError(f"commit refused: {path} goes through {folder}, which is not a folder")
                tree = sha or None
            entries = trees.setdefault(tree, self.client.tree_entries(tree)) if tree else {}
            if name in entries:
                mode, kind, _sha = entries[name]
                if kind != "blob" or mode not in FILE_MODES:
                    raise GitError(f"commit refused: {path} is not a regular file in the base (mode {mode})")
                modes[path] = mode
        return modes

    def remote_branch(self, branch: str) -> RemoteCommit | None:
        sha = self.client.branch_sha(branch)
        if sha is None:
            return None
        tree, parents = self.client.git_commit(sha)
        return RemoteCommit(sha, tree, parents)

    def push(self, sha: str, branch: str, *, expected: str | None) -> None:
        """Point `branch` at `sha`, but only if it still holds the commit we saw there (or none)."""
        current = self.client.branch_sha(branch)
        if current != expected:
            raise LeaseLost(f"git push to {branch} failed: the branch moved to {(current or 'nothing')[:12]}")
        try:
            self.client.set_branch(branch, sha, create=expected is None)
        except GitHubError as exc:
            now = self.client.branch_sha(branch)
            if now == sha:  # the answer may be what was lost, not the update
                return
            if expected is None and now is not None:  # created by another run between look-up and create
                raise LeaseLost(f"git push to {branch} failed: the branch moved to {now[:12]}") from exc
            raise
