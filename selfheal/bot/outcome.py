"""What one request came to, and the commit a heal starts from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfheal.agent.report.result import HealResult
from selfheal.bot.github.publish import Publication

REFUSED, IGNORED, PROPOSED = "refused", "ignored", "proposed"


@dataclass
class Outcome:
    status: str  # a heal status, or refused | ignored | proposed
    message: str
    result: HealResult | None = None
    report: dict[str, Any] | None = None
    publication: Publication | None = None
    out_dir: Path | None = None


@dataclass(frozen=True)
class Target:
    sha: str
    branch: str  # the branch that failed: the PR's base
    title: str  # for comments: what is being healed
