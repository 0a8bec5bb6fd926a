"""A review-mode proposal, and what proves that selfheal made it.

In review mode selfheal pushes the repair to a `selfheal/*` branch and proposes it in a comment;
`/heal approve` later opens the pull request. A comment is text that others influence (a test id
in a progress comment, another app's bot), so the comment's marker only *claims* a proposal.
What is believed comes from what only selfheal (or someone who may push to the repository
anyway) can make: the branch at the commit the claim names, that commit's `Selfheal-Proposal`
trailer naming this repository, this issue, the base and whether it is a draft, and where a key is
held (the bot's, derived from its webhook secret) an HMAC over all of it in the marker.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass, replace
from typing import Protocol

MARKER = re.compile(r"<!-- selfheal:proposal (\{[^\n]*?\}) -->")
TRAILER = "Selfheal-Proposal"
_TRAILER_LINE = re.compile(
    rf"^{TRAILER}: (?P<repo>\S+)#(?P<issue>\d+) into (?P<base>\S+)(?P<draft> \(draft\))?$", re.M
)


class ProposalError(ValueError):
    """The claimed proposal is not proven: the reason, in words for the comment."""


class Commits(Protocol):
    repo_name: str

    def branch_sha(self, branch: str) -> str | None: ...

    def commit_message(self, sha: str) -> str: ...


def proposal_key(secret: bytes) -> bytes:
    """The signing key, derived from a secret the operator holds (never the secret itself)."""
    return hmac.new(secret, b"selfheal proposal signature", hashlib.sha256).digest()


@dataclass(frozen=True)
class Proposal:
    repo: str
    issue: int
    branch: str
    sha: str
    base: str
    draft: bool
    signature: str = ""

    def trailer(self) -> str:
        return f"{TRAILER}: {self.repo}#{self.issue} into {self.base}" + (" (draft)" if self.draft else "")

    def sign(self, key: bytes) -> str:
        state = "draft" if self.draft else "ready"
        fields = [self.repo, str(self.issue), self.branch, self.sha, self.base, state]
        return hmac.new(key, "\n".join(fields).encode("utf-8"), hashlib.sha256).hexdigest()

    def marker(self, key: bytes | None) -> str:
        data = {"branch": self.branch, "sha": self.sha, "base": self.base, "draft": self.draft}
        if key:
            data["sig"] = self.sign(key)
        return f"<!-- selfheal:proposal {json.dumps(data)} -->"

    @classmethod
    def in_comment(cls, header: str) -> Proposal | None:
        """The proposal a comment's header claims (its repository and issue are the reader's)."""
        found = MARKER.search(header)
        if not found:
            return None
        try:
            data = json.loads(found.group(1))
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        return cls("", 0, str(data.get("branch", "")), str(data.get("sha", "")), str(data.get("base", "")),
                   data.get("draft") is not False, str(data.get("sig", "")))  # fmt: skip

    def proven(self, commits: Commits, issue: int, key: bytes | None) -> Proposal:
        """This claim, checked against the repository for the proposal of `issue`; ProposalError
        when any part of it is not what selfheal made."""
        claimed = replace(self, repo=commits.repo_name, issue=issue)
        if not claimed.branch.startswith("selfheal/"):
            raise ProposalError(f"`{claimed.branch}` is not a selfheal branch")
        if key and not hmac.compare_digest(claimed.signature, claimed.sign(key)):
            raise ProposalError("its signature is not selfheal's")
        at = commits.branch_sha(claimed.branch)
        if at is None or at != claimed.sha:
            raise ProposalError(f"the proposed branch `{claimed.branch}` changed or is gone")
        stated = [m for m in _TRAILER_LINE.finditer(commits.commit_message(claimed.sha))]
        if not stated:
            raise ProposalError(f"the commit on `{claimed.branch}` was not proposed by selfheal")
        found = stated[-1]
        proven = replace(claimed, base=found["base"], draft=bool(found["draft"]))
        if (found["repo"], int(found["issue"])) != (claimed.repo, issue):
            raise ProposalError(
                f"`{claimed.branch}` was proposed for {found['repo']}#{found['issue']}, not here"
            )
        if (proven.base, proven.draft) != (claimed.base, claimed.draft):
            raise ProposalError(f"the comment does not say what the commit on `{claimed.branch}` does")
        return proven
