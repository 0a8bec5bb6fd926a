"""Undirected weighted road networks and Dijkstra's algorithm."""

from __future__ import annotations

import heapq
import math
from typing import Iterable, Iterator

Network = dict[str, dict[str, float]]


class NoRoute(LookupError):
    pass


def parse_network(lines: Iterable[str]) -> Network:
    """Lines "A B 7": a two-way road of length 7; '#' starts a comment."""
    network: Network = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        a, b, length = line.split()
        weight = float(length)
        if weight < 0:
            raise ValueError(f"negative road length: {line!r}")
        for x, y in ((a, b), (b, a)):
            roads = network.setdefault(x, {})
            roads[y] = min(weight, roads.get(y, math.inf))
    return network


def _explore(network: Network, start: str) -> Iterator[tuple[float, str, list[str]]]:
    """(distance, town, route) for every town reachable from `start`, nearest first."""
    queue: list[tuple[float, str, list[str]]] = [(0.0, start, [start])]
    settled: set[str] = set()
    while queue:
        cost, town, route = heapq.heappop(queue)
        if town in settled:
            continue
        settled.add(town)
        yield cost, town, route
        for neighbour, weight in network.get(town, {}).items():
            if neighbour not in settled:
                heapq.heappush(queue, (weight, neighbour, route + [neighbour]))


def shortest_route(network: Network, start: str, goal: str) -> tuple[float, list[str]]:
    """(length, [start, ..., goal]) of a shortest route."""
    for town in (start, goal):
        if town not in network:
            raise NoRoute(f"unknown town: {town}")
    for cost, town, route in _explore(network, start):
        if town == goal:
            return cost, route
    raise NoRoute(f"no road from {start} to {goal}")


def distances_from(network: Network, start: str) -> dict[str, float]:
    """Shortest distance from `start` to every reachable town."""
    return dict(sorted((town, cost) for cost, town, _ in _explore(network, start)))
