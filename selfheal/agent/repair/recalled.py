"""What the memory of earlier heals says about where to look first: a hook for the search's order.

    RecalledOrder(families={"off-by-one": 0.8}, sites={("calc.py", "mean"): 0.5}).boost(...)

The weights are the similarity of the recalled heals to this failure (0..1, the most similar 1).
A boost multiplies a candidate's suspiciousness x prior; it reorders, it never removes: a
recalled family that does not fit this bug is screened later, not skipped. Built by the report
stage's recall, which the loop runs; the search only reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# how far one fully similar recalled fix lifts its family and its site; a family that fixed the
# same kind of failure is stronger evidence than a place, which a similar bug rarely shares
FAMILY_WEIGHT = 2.0
SITE_WEIGHT = 1.0
FILE_WEIGHT = 0.25


@dataclass(frozen=True)
class RecalledOrder:
    families: dict[str, float] = field(default_factory=dict)  # mutation family -> weight
    sites: dict[tuple[str, str], float] = field(default_factory=dict)  # (file, function) -> weight

    def __bool__(self) -> bool:
        return bool(self.families or self.sites)

    def boost(self, family: str, file: str, function: str) -> float:
        """The factor (>= 1) a candidate of `family` at `function` in `file` is ranked up by."""
        site = self.sites.get((file, function), 0.0)
        same_file = max((w for (f, _), w in self.sites.items() if f == file), default=0.0)
        return (
            1.0
            + FAMILY_WEIGHT * self.families.get(family, 0.0)
            + SITE_WEIGHT * site
            + FILE_WEIGHT * same_file
        )
