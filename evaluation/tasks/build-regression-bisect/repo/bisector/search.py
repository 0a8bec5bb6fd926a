from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BisectResult:
    first_bad: str | None  # None: every build is good
    tested: list[str] = field(default_factory=list)  # builds checked, in order


def first_bad(
    builds: Sequence[str],
    is_bad: Callable[[str], bool],
    *,
    skip: Callable[[str], bool] = lambda build: False,
) -> BisectResult:
    """The earliest bad build, given builds in order where every build after a bad one is bad.

    Tests O(log n) builds. A build `skip` rejects (it does not compile, say) is not tested; its
    nearest testable neighbour later in the range stands in for it.
    """
    tested: list[str] = []
    lo, hi = 0, len(builds)  # the first bad build is in builds[lo:hi], or there is none
    while lo < hi:
        mid = (lo + hi) // 2
        probe = _testable(builds, mid, hi, skip)
        if probe is None:
            hi = mid  # nothing testable in [mid, hi): look left of it
            continue
        tested.append(builds[probe])
        if is_bad(builds[probe]):
            hi = probe
        else:
            lo = probe
    return BisectResult(builds[lo] if lo < len(builds) else None, tested)


def _testable(builds: Sequence[str], start: int, stop: int, skip: Callable[[str], bool]) -> int | None:
    for index in range(start, stop):
        if not skip(builds[index]):
            return index
    return None
