"""Connected components of graphs and grids."""

from __future__ import annotations

from typing import Hashable, Iterable, Sequence

from dsu.disjoint import DisjointSet


def components(nodes: Iterable[Hashable], edges: Iterable[tuple[Hashable, Hashable]]) -> list[list[Hashable]]:
    """Components as sorted lists, largest first (ties by first node)."""
    forest = DisjointSet(nodes)
    for a, b in edges:
        forest.union(a, b)
    groups = [sorted(group) for group in forest.groups()]
    return sorted(groups, key=lambda group: (-len(group), group[0]))


def _land_forest(grid: Sequence[str]) -> DisjointSet:
    forest = DisjointSet()
    for r, row in enumerate(grid):
        for c, char in enumerate(row):
            if char != "#":
                continue
            forest.add((r, c))
            if r > 0 and grid[r - 1][c] == "#":
                forest.union((r, c), (r - 1, c))
            if c > 0 and row[c - 1] == "#":
                forest.union((r, c), (r, c - 1))
    return forest


def islands(grid: Sequence[str]) -> int:
    """Number of 4-connected groups of '#' cells."""
    return len(_land_forest(grid).groups())


def largest_island(grid: Sequence[str]) -> int:
    forest = _land_forest(grid)
    return max((forest.size_of(cell) for group in forest.groups() for cell in group), default=0)
