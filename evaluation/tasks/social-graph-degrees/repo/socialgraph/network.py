"""A friendship network loaded from text."""

from __future__ import annotations

from typing import Iterable, Optional

from socialgraph.build import build_graph, parse_pairs
from socialgraph.search import separation, suggestions


class Network:
    def __init__(self, lines: Iterable[str]) -> None:
        self.graph = build_graph(parse_pairs(lines))

    def __len__(self) -> int:
        return len(self.graph)

    def friends(self, person: str) -> list[str]:
        return sorted(self.graph[person.lower()])

    def separation(self, a: str, b: str) -> Optional[int]:
        return separation(self.graph, a.lower(), b.lower())

    def suggest(self, person: str, limit: int = 3) -> list[str]:
        return [name for name, _ in suggestions(self.graph, person.lower(), limit)]

    def most_connected(self, n: int = 1) -> list[tuple[str, int]]:
        """The n people with the most friends, ties alphabetically."""
        ranked = sorted(self.graph.items(), key=lambda item: (-len(item[1]), item[0]))
        return [(name, len(friends)) for name, friends in ranked[:n]]
