"""The repository's memory on GitHub: the orphan branch `selfheal-memory`, one JSONL file, one
commit per heal.

    branch = MemoryBranch(remote, parent=workdir, author=identity)
    branch.read()                  # the records (empty when the branch does not exist yet)
    branch.append(record)          # a commit on the branch's tip (or its first), pushed; None: there

Published with the fix branch's care (`gitops.Remote`): a bare git directory made for the
purpose, git's environment built, hooks and helpers off, the token's header only on ls-remote,
fetch and push. The file is written with plumbing from memory (`hash-object --no-filters`,
`mktree`, `commit-tree`), so nothing of the healed checkout is read. The push is a plain
fast-forward, never forced: when another heal pushed first, git refuses it, and the append starts
again from the new tip, so both heals keep their record. The branch name is fixed: nothing is
ever pushed to a branch of the user's code.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from selfheal.agent.report.memory import (
    MAX_BYTES,
    MEMORY_FILE,
    MemoryRecord,
    capped,
    parse_lines,
    render_lines,
    scrubbed_record,
)
from selfheal.bot.exceptions import GitError, StoreTooLarge
from selfheal.bot.github.gitops import Identity, Remote

MEMORY_BRANCH = "selfheal-memory"
REF = f"refs/heads/{MEMORY_BRANCH}"
MAX_STORE_BYTES = 8 * MAX_BYTES  # a file on the branch larger than this is not read at all
ATTEMPTS = 6


class MemoryBranch:
    def __init__(
        self,
        remote: Remote,
        parent: Path | None = None,
        author: Identity | None = None,
        key: bytes | None = None,
    ) -> None:
        self.remote = remote
        self.parent = parent
        self.author = author or Identity()
        self.key = key  # the operator's: records are signed with it, and only those it signed are read

    def read(self) -> list[MemoryRecord]:
        with _Scratch(self.remote, self.parent) as scratch:
            tip = scratch.fetch_tip()
            return parse_lines(scratch.file_at(tip), self.key) if tip else []

    def append(self, record: MemoryRecord) -> str | None:
        """Add `record` on the branch; the commit pushed, or None when the branch holds it already
        (a push whose answer was lost had landed: the retry finds the record there). Retries from
        the new tip when another heal's commit landed first."""

        stored = scrubbed_record(record, None, self.key)

        def add(records: list[MemoryRecord]) -> list[MemoryRecord]:
            return capped([*[r for r in records if r.id != stored.id], stored])

        return self._change(add, f"selfheal memory: {record.status} {record.id}")

    def forget(self, record_id: str) -> str | None:
        """Drop the record `record_id` (or the one it uniquely prefixes) in a new commit; that
        commit, or None when there is no such record."""
        message = f"selfheal memory: forget {record_id}"
        return self._change(lambda records: [r for r in records if r.id != record_id], message)

    def _change(self, change: Callable[[list[MemoryRecord]], list[MemoryRecord]], message: str) -> str | None:
        last: GitError | None = None
        for attempt in range(ATTEMPTS):
            with _Scratch(self.remote, self.parent) as scratch:
                tip = scratch.fetch_tip()
                # what the key did not sign is dropped from the branch with this commit; a store
                # grown past any size selfheal writes starts over
                try:
                    records = parse_lines(scratch.file_at(tip), self.key) if tip else []
                except StoreTooLarge:
                    records = []
                kept = change(records)
                if tip and kept == records:
                    return None  # nothing to change: no empty commit
                sha = scratch.commit(render_lines(kept), tip, message, self.author)
                try:
                    scratch.push(sha)
                    return sha
                except GitError as exc:  # another heal's commit landed first: read again
                    last = exc
            time.sleep(0.2 * (attempt + 1))
        raise GitError(f"the memory was not pushed after {ATTEMPTS} attempts: {last}")


class _Scratch:
    """A bare git directory made now for one read or append, removed after."""

    def __init__(self, remote: Remote, parent: Path | None) -> None:
        self.remote = remote
        self.folder = Path(tempfile.mkdtemp(prefix="selfheal-memory-", dir=parent))
        self.git_dir = self.folder / "git"

    def __enter__(self) -> _Scratch:
        try:
            self.remote.git(None, "init", "-q", "--bare", "--template=", str(self.git_dir), what="init",
                            cwd=self.folder)  # fmt: skip
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def _git(self, *args: str, what: str, **kwargs) -> str:
        return self.remote.git(self.git_dir, *args, what=what, **kwargs)

    def fetch_tip(self) -> str | None:
        what = f"look-up of branch {MEMORY_BRANCH}"
        return self.remote.fetch_branch_tip(self.git_dir, REF, "refs/selfheal/memory", what=what)

    def file_at(self, tip: str) -> str:
        listed = self._git("ls-tree", "-z", tip, "--", MEMORY_FILE, what="read of the memory")
        if not listed.strip("\0"):
            return ""
        meta = listed.split("\t", 1)[0].split()
        if meta[:2] != ["100644", "blob"]:
            raise GitError(f"{MEMORY_FILE} on {MEMORY_BRANCH} is not a regular file")
        size = int(self._git("cat-file", "-s", meta[2], what="read of the memory").strip() or 0)
        if size > MAX_STORE_BYTES:
            # selfheal never writes a store this large; reading it whole would cost every heal
            raise StoreTooLarge(
                f"{MEMORY_FILE} on {MEMORY_BRANCH} is {size} bytes, over {MAX_STORE_BYTES}: not read"
            )
        return self._git("cat-file", "blob", meta[2], what="read of the memory")

    def commit(self, text: str, parent: str | None, message: str, author: Identity) -> str:
        text = self.remote.redact(text)  # scrubbed already; the token of this push, to be sure
        blob = self._git("hash-object", "-w", "--no-filters", "--stdin", what="memory commit",
                         input=text.encode("utf-8")).strip()  # fmt: skip
        tree = self._git("mktree", "-z", what="memory commit",
                         input=f"100644 blob {blob}\t{MEMORY_FILE}\0".encode()).strip()  # fmt: skip
        people = {
            "GIT_AUTHOR_NAME": author.name, "GIT_AUTHOR_EMAIL": author.email,
            "GIT_COMMITTER_NAME": author.name, "GIT_COMMITTER_EMAIL": author.email,
        }  # fmt: skip
        parents = ("-p", parent) if parent else ()  # the first commit has none: an orphan branch
        return self._git("commit-tree", "--no-gpg-sign", tree, *parents, "-F", "-", what="memory commit",
                         input=message.encode("utf-8"), env=people).strip()  # fmt: skip

    def push(self, sha: str) -> None:
        # not forced: a tip that moved since it was read refuses this commit
        self._git("push", "--no-verify", "--quiet", self.remote.url, f"{sha}:{REF}",
                  what=f"push to {MEMORY_BRANCH}", auth=True)  # fmt: skip
