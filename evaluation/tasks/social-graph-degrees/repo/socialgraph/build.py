"""Building the friendship graph. Friendship is mutual."""

from __future__ import annotations

from typing import Iterable

Graph = dict[str, set[str]]


def parse_pairs(lines: Iterable[str]) -> list[tuple[str, str]]:
    """Lines "alice,bob"; a line with a single name adds a person without friends."""
    pairs = []
    for line in lines:
        names = [name.strip().lower() for name in line.split(",") if name.strip()]
        if len(names) == 1:
            pairs.append((names[0], names[0]))
        elif len(names) == 2:
            pairs.append((names[0], names[1]))
        elif names:
            raise ValueError(f"expected one or two names: {line!r}")
    return pairs


def build_graph(pairs: Iterable[tuple[str, str]]) -> Graph:
    """Everyone mentioned, with the set of their friends. (x, x) adds x alone."""
    graph: Graph = {}
    for a, b in pairs:
        graph.setdefault(a, set())
        graph.setdefault(b, set())
        if a != b:
            graph[a].add(b)
    return graph
