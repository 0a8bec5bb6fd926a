"""A fault case's result: which of the requirements (harness.py lists them) it held, and for each
it failed, what was seen."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

REQUIREMENTS = (
    "exit-code", "clear-error", "no-duplicate-pr", "no-stray-branch", "report", "next-run", "leftovers",
)  # fmt: skip


@dataclass
class CaseResult:
    case: str
    family: str
    title: str
    held: bool = False
    failed: dict[str, str] = field(default_factory=dict)  # requirement -> what was seen
    duration_s: float = 0.0
    first: dict[str, Any] = field(default_factory=dict)
    next: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
