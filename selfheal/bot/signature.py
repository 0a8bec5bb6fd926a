"""The failure signature: one pull request per distinct failure, updated when it is healed again."""

from __future__ import annotations

import hashlib

from selfheal.agent.run.junit import error_type
from selfheal.agent.run.testrun import TestReport


def failure_signature(baseline: TestReport, flaky: tuple[str, ...], base_branch: str) -> str:
    """A stable hash of the failing test ids and their error types, on one base branch.

    The base branch is part of it so that the same failure on two branches gets two pull
    requests, each against the branch that failed.
    """
    lines = sorted(
        f"{nodeid}|{error_type(outcome.message, outcome.outcome)}"
        for nodeid, outcome in baseline.outcomes.items()
        if outcome.failing and nodeid not in flaky
    )
    digest = hashlib.sha256("\n".join([f"base={base_branch}", *lines]).encode("utf-8")).hexdigest()
    return digest[:12]


def branch_for(signature: str) -> str:
    return f"selfheal/{signature}"
