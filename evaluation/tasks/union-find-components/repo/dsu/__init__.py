"""Union-find and its uses."""

from dsu.components import components, islands, largest_island
from dsu.disjoint import DisjointSet

__all__ = ["DisjointSet", "components", "islands", "largest_island"]
