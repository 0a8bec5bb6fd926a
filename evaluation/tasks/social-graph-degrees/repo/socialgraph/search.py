"""Searches over a friendship graph."""

from __future__ import annotations

from collections import Counter, deque
from typing import Optional

from socialgraph.build import Graph


def separation(graph: Graph, source: str, target: str) -> Optional[int]:
    """Fewest friendship steps from source to target (0 for the same person), None if unconnected."""
    if source not in graph or target not in graph:
        raise KeyError(source if source not in graph else target)
    steps = {source: 0}
    queue = deque([source])
    while queue:
        person = queue.popleft()
        if person == target:
            return steps[person]
        for friend in sorted(graph[person]):
            if friend not in steps:
                steps[friend] = steps[person] + 1
                queue.append(friend)
    return None


def suggestions(graph: Graph, person: str, limit: int = 3) -> list[tuple[str, int]]:
    """Friends of friends who are not yet friends, with the number of mutual friends; most first."""
    counts: Counter[str] = Counter()
    for friend in graph[person]:
        for candidate in graph[friend]:
            if candidate != person and candidate not in graph[person]:
                counts[candidate] += 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]
