"""Dependency graphs as {package: [packages it depends on]}."""

from __future__ import annotations

from typing import Mapping, Sequence

Graph = Mapping[str, Sequence[str]]


class CycleError(ValueError):
    def __init__(self, cycle: list[str]) -> None:
        super().__init__("dependency cycle: " + " -> ".join(cycle))
        self.cycle = cycle


def missing(graph: Graph) -> set[str]:
    """Packages depended on but not described in the graph."""
    return {dep for deps in graph.values() for dep in deps} - set(graph)


def install_order(graph: Graph) -> list[str]:
    """Every package after all of its dependencies; ties in alphabetical order.

    Packages only mentioned as dependencies are included. A cycle raises CycleError naming
    the packages on it, e.g. a -> b -> a.
    """
    order: list[str] = []
    done: set[str] = set()
    stack: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        if name in stack:
            raise CycleError(stack[stack.index(name) :] + [name])
        stack.append(name)
        for dep in sorted(graph.get(name, ())):
            visit(dep)
        done.add(name)
        order.append(name)

    for name in sorted(set(graph) | missing(graph)):
        visit(name)
    return order


def layers(graph: Graph) -> list[list[str]]:
    """Groups that can be installed in parallel: a package's layer is one more than the
    highest layer among its dependencies."""
    level: dict[str, int] = {}
    for name in install_order(graph):
        level[name] = 1 + max((level[dep] for dep in graph.get(name, ())), default=-1)
    grouped: list[list[str]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for name, number in level.items():
        grouped[number].append(name)
    return [sorted(group) for group in grouped]
