"""SemVer 2.0: MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD].

Precedence: numeric comparison of major, minor and patch; a pre-release version is lower than
the same version without one; pre-release identifiers compare one by one, numbers numerically
and below words; build metadata is ignored.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

PATTERN = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


@functools.total_ordering
@dataclass(frozen=True, eq=False)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: tuple[str, ...] = ()
    build: str = field(default="")

    @classmethod
    def parse(cls, text: str) -> Version:
        match = PATTERN.match(text.strip())
        if not match:
            raise ValueError(f"not a semantic version: {text!r}")
        major, minor, patch, pre, build = match.groups()
        return cls(int(major), int(minor), int(patch), tuple(pre.split(".")) if pre else (), build or "")

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(self.prerelease)
        if self.build:
            text += "+" + self.build
        return text

    def _key(self) -> tuple:
        identifiers = tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in self.prerelease)
        return (self.major, self.minor, self.patch, 1 if self.prerelease else 0, identifiers)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key() == other._key()

    def __lt__(self, other: Version) -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def bump(self, part: str) -> Version:
        """The next major, minor or patch release (pre-release and build dropped)."""
        if part == "major":
            return Version(self.major + 1, 0, 0)
        if part == "minor":
            return Version(self.major, self.minor + 1, 0)
        if part == "patch":
            return Version(self.major, self.minor, self.patch + 1)
        raise ValueError(f"unknown part {part!r}")


def latest(versions: Iterable[str], include_prerelease: bool = False) -> Optional[str]:
    """The highest version string, skipping pre-releases unless asked."""
    parsed = [Version.parse(text) for text in versions]
    candidates = [v for v in parsed if include_prerelease or not v.prerelease]
    return str(max(candidates)) if candidates else None
